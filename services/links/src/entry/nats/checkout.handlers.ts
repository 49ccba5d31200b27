import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { toBuyerLinkView } from '../../domain/buyer-view';
import { toPaymentLink } from '../../domain/link-view';
import type { LinkDeps } from '../../domain/ports';
import { getPublicLink, selectMethod } from '../../domain/select-method';
import { settlePayment } from '../../domain/settle-payment';

/** Buyer and provider subjects; only platform services (the gateway) may call them. */
export function registerCheckoutHandlers(server: BusServer, deps: LinkDeps, publicBaseUrl: string): void {
  server.handle(subjects.linksPublicGet, async ({ id }, ctx) => {
    const { link, shopName } = await getPublicLink(deps, ctx.identity, id);
    return toBuyerLinkView(link, shopName, publicBaseUrl);
  });
  server.handle(subjects.linksSelect, async (command, ctx) => {
    const { link, shopName } = await selectMethod(deps, ctx.identity, command);
    return toBuyerLinkView(link, shopName, publicBaseUrl);
  });
  server.handle(subjects.linksSettle, async (command, ctx) => toPaymentLink(await settlePayment(deps, ctx.identity, command), publicBaseUrl));
}
