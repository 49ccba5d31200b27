import { z } from 'zod';
import { subjects, type Identity } from '@pl/contracts';
import type { AdminContext } from '../context';
import { parseFlags } from '../flags';

const flags = z.strictObject({
  link: z.uuid({ message: 'must be a payment link id (UUID)' }),
  status: z.enum(['paid', 'failed']).default('paid'),
});

const ADMIN_IDENTITY: Identity = { kind: 'service', service: 'admin' };

/** The sandbox provider names a link's payment `sbx_<link id>` (the links service derives the link back). */
const sandboxPaymentId = (linkId: string): string => `sbx_${linkId}`;

/**
 * `payment:confirm --link ID [--status paid|failed]` -> the link after the move. It takes the path a
 * sandbox provider callback takes (links.settle), so a confirmed payment gets its outbox event and
 * webhook like any other; a link that is not pending is links' 409 and nothing changes.
 */
export async function paymentConfirm(args: string[], ctx: AdminContext): Promise<object> {
  const f = parseFlags(args, { link: { type: 'string' }, status: { type: 'string' } }, flags);
  const bus = await ctx.bus();
  return bus.request(
    subjects.linksSettle,
    { provider: 'sandbox', gateway_payment_id: sandboxPaymentId(f.link.toLowerCase()), status: f.status },
    ADMIN_IDENTITY,
  );
}
