import { z } from 'zod';
import type { AdminContext } from '../context';
import { parseFlags } from '../flags';

const flags = z.strictObject({
  email: z.email({ message: 'must be an email address' }).max(254),
  password: z.string().min(8, { message: 'must be at least 8 characters' }).max(256),
  'email-confirmed': z.boolean().default(false),
});

/** `merchant:create --email E --password P [--email-confirmed]` -> the merchant id and its API key pair. */
export async function merchantCreate(args: string[], ctx: AdminContext): Promise<object> {
  const f = parseFlags(args, { email: { type: 'string' }, password: { type: 'string' }, 'email-confirmed': { type: 'boolean' } }, flags);
  const { merchant, apiKey, apiSecret } = await ctx.accounts().createMerchant({
    email: f.email,
    password: f.password,
    emailConfirmed: f['email-confirmed'],
  });
  return { merchant_id: merchant.id, api_key: apiKey, api_secret: apiSecret };
}
