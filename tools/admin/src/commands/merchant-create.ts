import { z } from 'zod';
import type { Command } from '../command';
import { checkFlags, readFlags } from '../flags';
import { withSecret, type SecretSource } from '../secrets';

const flags = z.strictObject({
  email: z.email({ message: 'must be an email address' }).max(254),
  password: z
    .string({ error: 'is required: give it with --password-stdin or ADMIN_MERCHANT_PASSWORD' })
    .min(8, { message: 'must be at least 8 characters' })
    .max(256),
  'email-confirmed': z.boolean().default(false),
});

const PASSWORD: SecretSource = { flag: 'password', stdinFlag: 'password-stdin', envName: 'ADMIN_MERCHANT_PASSWORD' };

/**
 * `merchant:create --email E (--password-stdin | ADMIN_MERCHANT_PASSWORD) [--email-confirmed]` -> the merchant id
 * and its first API key pairs, live and test.
 */
export const merchantCreate: Command = {
  summary: 'create a merchant account and its first live and test API key pairs',
  help: `Usage: merchant:create --email E [--email-confirmed] (--password-stdin | ADMIN_MERCHANT_PASSWORD=... | --password P)

Creates a merchant who signs in with E and the password, and its first API key pairs: a live one and a
test one (test-mode links only, no money moves).

  --email E           the sign-in email (unique, case-insensitive)
  --email-confirmed   mark the email confirmed (the merchant may create shops at once)
  --password-stdin    read the password from standard input (one trailing newline is dropped)
  --password P        deprecated: the password lands in shell history and the process list (warns)
The password (8 to 256 characters) comes from --password-stdin, else --password, else ADMIN_MERCHANT_PASSWORD.

Prints {"merchant_id", "api_key", "api_secret", "test_api_key", "test_api_secret"}: the live pair
(pk_live_.../sk_live_...) and the test pair (pk_test_.../sk_test_...). The secrets are shown only now.`,
  async run(args, ctx, io) {
    const values = readFlags(args, {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      'email-confirmed': { type: 'boolean' },
    });
    const f = checkFlags(await withSecret(values, PASSWORD, ctx.env, io), flags);
    const created = await ctx.accounts().createMerchant({
      email: f.email,
      password: f.password,
      emailConfirmed: f['email-confirmed'],
    });
    return {
      merchant_id: created.merchant.id,
      api_key: created.apiKey,
      api_secret: created.apiSecret,
      test_api_key: created.testApiKey,
      test_api_secret: created.testApiSecret,
    };
  },
};
