import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { webhookHeaders } from './webhook-signature';

const body = Buffer.from('{"event":"payment.succeeded","data":{"amount":"10.00"}}', 'utf8');
const facts = { webhookId: 'whk_1', event: 'payment.succeeded', body, attempt: 3, timestamp: Math.floor(Date.now() / 1000) };

describe('webhookHeaders', () => {
  it('signs with hex HMAC and a Standard Webhooks signature a reference library verifies', () => {
    const secret = 'секрет-with-unicode';
    const headers = webhookHeaders({ ...facts, secret });
    const hex = createHmac('sha256', secret).update(body).digest('hex');
    expect(headers).toMatchObject({ 'X-Webhook-Signature': hex, 'Service-Signature': hex, 'X-Webhook-Attempt': '3', 'webhook-id': 'whk_1' });
    const wh = new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`);
    expect(() => wh.verify(body.toString('utf8'), headers)).not.toThrow();
  });

  it('leaves every signature header out when the shop has no secret', () => {
    const headers = webhookHeaders({ ...facts, secret: null });
    expect(Object.keys(headers).filter((h) => /signature/i.test(h))).toEqual([]);
    expect(headers['X-Webhook-Timestamp']).toBe(headers['webhook-timestamp']);
  });
});
