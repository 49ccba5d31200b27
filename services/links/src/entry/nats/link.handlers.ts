import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { cancelLink } from '../../domain/cancel-link';
import { createLink } from '../../domain/create-link';
import { getLink } from '../../domain/get-link';
import { toPaymentLink, toPaymentLinkPage } from '../../domain/link-view';
import { listLinks } from '../../domain/list-links';
import type { LinkDeps } from '../../domain/ports';

/** The links subjects: the bus has already verified the identity token and parsed the payload. */
export function registerLinkHandlers(server: BusServer, deps: LinkDeps, publicBaseUrl: string): void {
  server.handle(subjects.linksCreate, async (command, ctx) =>
    toPaymentLink(await createLink(deps, ctx.identity, command), publicBaseUrl),
  );
  server.handle(subjects.linksGet, async ({ id }, ctx) => toPaymentLink(await getLink(deps, ctx.identity, id), publicBaseUrl));
  server.handle(subjects.linksList, async (command, ctx) =>
    toPaymentLinkPage(await listLinks(deps, ctx.identity, command), publicBaseUrl),
  );
  server.handle(subjects.linksCancel, async ({ id }, ctx) =>
    toPaymentLink(await cancelLink(deps, ctx.identity, id), publicBaseUrl),
  );
}
