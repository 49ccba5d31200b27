import type { BusServer } from '@pl/bus';
import { modeOfLivemode, subjects, type UnresolvedPaymentView } from '@pl/contracts';
import { getUnresolved, listUnresolved, resolveUnresolved, type UnresolvedApiDeps } from '../../domain/unresolved-read';
import { inLinkMode } from './link-span';

const modeOf = (u: UnresolvedPaymentView) => modeOfLivemode(u.livemode);

/** The unresolved payments' subjects (docs/money.md, "Unresolved payments"), for merchants through the gateway. */
export function registerUnresolvedHandlers(server: BusServer, deps: UnresolvedApiDeps): void {
  server.handle(subjects.unresolvedList, (command, ctx) => inLinkMode(ctx, () => listUnresolved(deps, ctx.identity, command)));
  server.handle(subjects.unresolvedGet, ({ id }, ctx) => inLinkMode(ctx, () => getUnresolved(deps, ctx.identity, id), modeOf));
  server.handle(subjects.unresolvedResolve, (command, ctx) => inLinkMode(ctx, () => resolveUnresolved(deps, ctx.identity, command), modeOf));
}
