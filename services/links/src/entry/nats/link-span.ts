import type { HandlerContext } from '@pl/bus';
import type { Mode } from '@pl/contracts';
import { activeSpan, MODE_ATTRIBUTE } from '@pl/telemetry';

/**
 * Runs the handling of a link and marks the span the bus handles its message in with `pl.mode`, so a trace tells a
 * test payment from a live one. A merchant's mode is known before any link is read (a 404 still says which world
 * was asked); a buyer's or a provider's is the link's, known once `modeOf` reads it from the answer.
 */
export async function inLinkMode<T>(ctx: HandlerContext, work: () => Promise<T>, modeOf?: (answer: T) => Mode): Promise<T> {
  // Taken before the work: its awaits may leave another span active.
  const span = activeSpan();
  if (ctx.identity.kind === 'merchant') span?.setAttribute(MODE_ATTRIBUTE, ctx.identity.mode);
  const answer = await work();
  if (modeOf) span?.setAttribute(MODE_ATTRIBUTE, modeOf(answer));
  return answer;
}
