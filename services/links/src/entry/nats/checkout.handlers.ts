import type { BusServer } from '@pl/bus';
import { modeOfLivemode, subjects } from '@pl/contracts';
import { toBuyerLinkView } from '../../domain/buyer-view';
import { toPaymentLink } from '../../domain/link-view';
import type { LinkDeps } from '../../domain/ports';
import { getPublicLink, selectMethod, type BuyerLink } from '../../domain/select-method';
import { settlePayment } from '../../domain/settle-payment';
import { simulatePayment } from '../../domain/simulate-payment';
import { inLinkMode } from './link-span';

const modeOfLink = (link: { livemode: boolean }) => modeOfLivemode(link.livemode);

/** Buyer and provider subjects; only platform services (the gateway) may call them. Each acts in the link's own mode. */
export function registerCheckoutHandlers(server: BusServer, deps: LinkDeps, publicBaseUrl: string): void {
  const buyerView = ({ link, shopName, checkout }: BuyerLink) => toBuyerLinkView(link, shopName, publicBaseUrl, checkout);
  server.handle(subjects.linksPublicGet, ({ id }, ctx) =>
    inLinkMode(ctx, async () => buyerView(await getPublicLink(deps, ctx.identity, id)), modeOfLink),
  );
  server.handle(subjects.linksSelect, (command, ctx) =>
    inLinkMode(ctx, async () => buyerView(await selectMethod(deps, ctx.identity, command)), modeOfLink),
  );
  server.handle(subjects.linksSettle, (command, ctx) =>
    inLinkMode(ctx, async () => toPaymentLink(await settlePayment(deps, ctx.identity, command), publicBaseUrl), modeOfLink),
  );
  server.handle(subjects.linksSimulate, (command, ctx) =>
    inLinkMode(
      ctx,
      async () => {
        const settled = await simulatePayment(deps, ctx.identity, command);
        // Only test links get here: the line says so, so nobody reads it as money that moved.
        ctx.log.info({ link_id: settled.link.id, mode: modeOfLink(settled.link), status: settled.link.status }, 'test payment simulated');
        return buyerView(settled);
      },
      modeOfLink,
    ),
  );
}
