import { createHmac } from 'node:crypto';

/** Everything that makes one attempt's request, besides the URL. */
export interface WebhookRequestFacts {
  webhookId: string;
  event: string;
  body: Buffer;
  /** The shop's webhook secret; null means the shop signs nothing. */
  secret: string | null;
  /** The secret before the latest rotation while its overlap lasts: `webhook-signature` then carries both. */
  previousSecret: string | null;
  attempt: number;
  /** Unix seconds of this attempt. */
  timestamp: number;
}

/** hex(HMAC-SHA256(raw body, secret)): the interface's `X-Webhook-Signature` / `Service-Signature`. */
export const hexSignature = (body: Buffer, secret: string): string => createHmac('sha256', secret).update(body).digest('hex');

/**
 * Standard Webhooks `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with the UTF-8 bytes of
 * the secret; a Standard Webhooks library verifies it with `whsec_` + base64 of those bytes.
 */
export function standardSignature(webhookId: string, timestamp: number, body: Buffer, secret: string): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${webhookId}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** The headers of one attempt, exactly as the decisions' Webhooks part lists them. */
export function webhookHeaders(facts: WebhookRequestFacts): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(facts.body.length),
    'User-Agent': 'payment-links-webhooks/1',
    'X-Webhook-Event': facts.event,
    'Service-Event': facts.event,
    'X-Webhook-Id': facts.webhookId,
    'X-Webhook-Timestamp': String(facts.timestamp),
    'X-Webhook-Attempt': String(facts.attempt),
    'webhook-id': facts.webhookId,
    'webhook-timestamp': String(facts.timestamp),
  };
  if (facts.secret !== null) {
    const hex = hexSignature(facts.body, facts.secret);
    headers['X-Webhook-Signature'] = hex;
    headers['Service-Signature'] = hex;
    // The new secret's signature first, then the old one's, space-separated (the Standard Webhooks form for
    // rotation): a receiver verifies with either secret. The hex headers carry the new secret only.
    const signatures = [standardSignature(facts.webhookId, facts.timestamp, facts.body, facts.secret)];
    if (facts.previousSecret !== null && facts.previousSecret !== facts.secret) {
      signatures.push(standardSignature(facts.webhookId, facts.timestamp, facts.body, facts.previousSecret));
    }
    headers['webhook-signature'] = signatures.join(' ');
  }
  return headers;
}
