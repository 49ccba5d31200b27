import { randomBytes } from 'node:crypto';

/** A new webhook secret: 256 random bits as base64url text, whose UTF-8 bytes are the HMAC key. */
export const newWebhookSecret = (): string => randomBytes(32).toString('base64url');

/** The same secret as the Standard Webhooks libraries take it: `whsec_` + base64 of its UTF-8 bytes. */
export const toStandardWebhooksSecret = (secret: string): string => `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
