import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { cancelLink, cancelLinkOnce } from '../../domain/cancel-link';
import { createLink, createLinkOnce } from '../../domain/create-link';
import { getLink } from '../../domain/get-link';
import type { LinkAnswer } from '../../domain/idempotency';
import { toPaymentLink, toPaymentLinkPage } from '../../domain/link-view';
import { listLinks } from '../../domain/list-links';
import type { LinkDeps } from '../../domain/ports';

/** The links subjects: the bus has already verified the identity token and parsed the payload. */
export function registerLinkHandlers(server: BusServer, deps: LinkDeps, publicBaseUrl: string): void {
  server.handle(subjects.linksCreate, async (command, ctx) => toPaymentLink(await createLink(deps, ctx.identity, command), publicBaseUrl));
  server.handle(subjects.linksGet, async ({ id }, ctx) => toPaymentLink(await getLink(deps, ctx.identity, id), publicBaseUrl));
  server.handle(subjects.linksList, async (command, ctx) => toPaymentLinkPage(await listLinks(deps, ctx.identity, command), publicBaseUrl));
  server.handle(subjects.linksCancel, async ({ id }, ctx) => toPaymentLink(await cancelLink(deps, ctx.identity, id), publicBaseUrl));
  const reply = ({ link, replayed }: LinkAnswer) => ({ link: toPaymentLink(link, publicBaseUrl), replayed });
  server.handle(subjects.linksCreateOnce, async (command, ctx) => reply(await createLinkOnce(deps, ctx.identity, command)));
  server.handle(subjects.linksCancelOnce, async (command, ctx) => reply(await cancelLinkOnce(deps, ctx.identity, command)));
}
