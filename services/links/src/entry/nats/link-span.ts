import type { HandlerContext } from '@pl/bus';
import type { Mode } from '@pl/contracts';
import { inSpan } from '@pl/telemetry';

/** The span attribute that says which world a link lives in (`live` or `test`), as every service names it. */
export const MODE_ATTRIBUTE = 'pl.mode';

/**
 * Runs the handling of a link in a span of its own that carries `pl.mode`, so a trace tells a test payment from a
 * live one. A merchant's mode is known before any link is read (a 404 still says which world was asked); a buyer's
 * or a provider's is the link's, known once `modeOf` reads it from the answer.
 */
export function inLinkSpan<T>(name: string, ctx: HandlerContext, work: () => Promise<T>, modeOf?: (answer: T) => Mode): Promise<T> {
  const attributes = ctx.identity.kind === 'merchant' ? { [MODE_ATTRIBUTE]: ctx.identity.mode } : {};
  return inSpan(name, { attributes }, async (span) => {
    const answer = await work();
    if (modeOf) span.setAttribute(MODE_ATTRIBUTE, modeOf(answer));
    return answer;
  });
}
