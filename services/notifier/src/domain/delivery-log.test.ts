import { decodeDeliveryCursor, encodeDeliveryCursor } from './delivery-log';

describe('delivery cursor', () => {
  it('round-trips a position', () => {
    expect(decodeDeliveryCursor(encodeDeliveryCursor(42n))).toBe(42n);
  });

  it.each(['', 'not base64!', Buffer.from('v2:1').toString('base64url'), Buffer.from('v1:-1').toString('base64url')])('refuses %j', (text) => {
    expect(() => decodeDeliveryCursor(text)).toThrow(expect.objectContaining({ kind: 'validation' }));
  });
});
