import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { webhookHeaders } from './webhook-signature';

const body = Buffer.from('{"event":"payment.succeeded","data":{"amount":"10.00"}}', 'utf8');
const facts = { webhookId: 'whk_1', event: 'payment.succeeded', body, attempt: 3, timestamp: Math.floor(Date.now() / 1000), previousSecret: null };

/** A receiver holding `secret`, as the Standard Webhooks library takes it: `whsec_` + base64 of its UTF-8 bytes. */
const receiverWith = (secret: string): Webhook => new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`);
const hex = (secret: string): string => createHmac('sha256', secret).update(body).digest('hex');

describe('webhookHeaders', () => {
  it('signs with hex HMAC and a Standard Webhooks signature a reference library verifies', () => {
    const secret = 'секрет-with-unicode';
    const headers = webhookHeaders({ ...facts, secret });
    expect(headers).toMatchObject({
      'X-Webhook-Signature': hex(secret),
      'Service-Signature': hex(secret),
      'X-Webhook-Attempt': '3',
      'webhook-id': 'whk_1',
    });
    expect(() => receiverWith(secret).verify(body.toString('utf8'), headers)).not.toThrow();
  });

  it('leaves every signature header out when the shop has no secret', () => {
    const headers = webhookHeaders({ ...facts, secret: null });
    expect(Object.keys(headers).filter((h) => /signature/i.test(h))).toEqual([]);
    expect(headers['X-Webhook-Timestamp']).toBe(headers['webhook-timestamp']);
  });

  describe('during a secret rotation’s overlap', () => {
    const secret = 'new-secret-after-rotation';
    const previousSecret = 'old-secret-before-rotation';
    const headers = webhookHeaders({ ...facts, secret, previousSecret });

    it('carries both signatures, the new secret’s first, and a receiver holding either secret verifies', () => {
      const own = webhookHeaders({ ...facts, secret });
      const old = webhookHeaders({ ...facts, secret: previousSecret });
      expect(headers['webhook-signature']).toBe(`${own['webhook-signature']} ${old['webhook-signature']}`);
      expect(() => receiverWith(secret).verify(body.toString('utf8'), headers)).not.toThrow();
      expect(() => receiverWith(previousSecret).verify(body.toString('utf8'), headers)).not.toThrow();
      expect(() => receiverWith('some-other-secret').verify(body.toString('utf8'), headers)).toThrow();
    });

    it('keeps the hex headers on the new secret only', () => {
      expect(headers).toMatchObject({ 'X-Webhook-Signature': hex(secret), 'Service-Signature': hex(secret) });
    });
  });

  it('after the overlap carries the new secret’s signature alone: the old secret no longer verifies', () => {
    const headers = webhookHeaders({ ...facts, secret: 'new-secret-after-rotation', previousSecret: null });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(1);
    expect(() => receiverWith('new-secret-after-rotation').verify(body.toString('utf8'), headers)).not.toThrow();
    expect(() => receiverWith('old-secret-before-rotation').verify(body.toString('utf8'), headers)).toThrow();
  });

  it('signs once when the previous secret equals the current one', () => {
    const headers = webhookHeaders({ ...facts, secret: 'same', previousSecret: 'same' });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(1);
  });
});
