import { JsonText, type BusServer } from '@pl/bus';
import { modeOfLivemode, subjects, type PaymentLink, type PaymentLinkPage } from '@pl/contracts';
import { cancelLink, cancelLinkOnce } from '../../domain/cancel-link';
import { createLink, createLinkOnce } from '../../domain/create-link';
import { getLink } from '../../domain/get-link';
import type { LinkAnswer } from '../../domain/idempotency';
import { toPaymentLink, toPaymentLinkPageJson } from '../../domain/link-view';
import { listAttempts } from '../../domain/list-attempts';
import { listLinks } from '../../domain/list-links';
import type { LinkDeps } from '../../domain/ports';
import { inLinkMode } from './link-span';

const modeOfLink = (link: PaymentLink) => modeOfLivemode(link.livemode);
const modeOfReply = (reply: { link: PaymentLink }) => modeOfLink(reply.link);

/** The links subjects: the bus has already verified the identity token and parsed the payload. */
export function registerLinkHandlers(server: BusServer, deps: LinkDeps, publicBaseUrl: string): void {
  const view = (link: Parameters<typeof toPaymentLink>[0]) => toPaymentLink(link, publicBaseUrl);
  server.handle(subjects.linksCreate, (command, ctx) => inLinkMode(ctx, async () => view(await createLink(deps, ctx.identity, command)), modeOfLink));
  server.handle(subjects.linksGet, ({ id }, ctx) => inLinkMode(ctx, async () => view(await getLink(deps, ctx.identity, id)), modeOfLink));
  server.handle(subjects.linksList, (command, ctx) =>
    inLinkMode(ctx, async () => new JsonText<PaymentLinkPage>(toPaymentLinkPageJson(await listLinks(deps, ctx.identity, command, publicBaseUrl)))),
  );
  server.handle(subjects.linksAttemptsList, ({ id }, ctx) => inLinkMode(ctx, () => listAttempts(deps, ctx.identity, id)));
  server.handle(subjects.linksCancel, ({ id }, ctx) => inLinkMode(ctx, async () => view(await cancelLink(deps, ctx.identity, id)), modeOfLink));
  const reply = ({ link, replayed }: LinkAnswer) => ({ link: view(link), replayed });
  server.handle(subjects.linksCreateOnce, (command, ctx) =>
    inLinkMode(ctx, async () => reply(await createLinkOnce(deps, ctx.identity, command)), modeOfReply),
  );
  server.handle(subjects.linksCancelOnce, (command, ctx) =>
    inLinkMode(ctx, async () => reply(await cancelLinkOnce(deps, ctx.identity, command)), modeOfReply),
  );
}
