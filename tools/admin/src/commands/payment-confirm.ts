import { z } from 'zod';
import { AppError } from '@pl/errors';
import type { AdminContext } from '../context';
import { parseFlags } from '../flags';

const flags = z.strictObject({
  link: z.uuid({ message: 'must be a payment link id (UUID)' }),
  status: z.enum(['paid', 'failed']).default('paid'),
});

/**
 * `payment:confirm --link ID [--status paid|failed]`. The move belongs to the links service's payment
 * lifecycle; until that lands the command validates its flags and reports itself as not implemented.
 */
export async function paymentConfirm(args: string[], _ctx: AdminContext): Promise<object> {
  parseFlags(args, { link: { type: 'string' }, status: { type: 'string' } }, flags);
  throw new AppError(
    'internal',
    'common.err.not_implemented',
    'payment:confirm is not available yet: it arrives with the payment lifecycle of the links service',
  );
}
