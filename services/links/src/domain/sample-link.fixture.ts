import { randomUUID } from 'node:crypto';
import type { LinkRecord, NewLink } from './link';

/**
 * The one hand-built payment link of the tests, so a new field of the link is added here once rather than to
 * every copy. 1234.56 RUB at 1.5 % (crypto; SBP 0.7 %) split between buyer and merchant; a fresh id per call,
 * so links inserted into one database never collide. A test overrides only what it asserts on. It lives in src/
 * so that the test entry (`@pl/links/testing`) hands it to tests outside the service, such as the admin CLI's.
 */
export const sampleNewLink = (over: Partial<NewLink> = {}): NewLink => ({
  id: randomUUID(),
  merchantId: randomUUID(),
  shopId: 42,
  livemode: true,
  orderId: null,
  description: null,
  returnUrl: null,
  amount: 123456,
  feeBps: 150,
  feePercentBp: 150,
  cryptoBps: 150,
  sbpBps: 70,
  feePayer: 'split',
  payerAmount: 124382,
  merchantCredit: 122530,
  platformRevenue: 1852,
  expiresInMinutes: 1440,
  ...over,
});

/** The same link as the store reads it back: `pending`, created 2026-11-22 10:15:00.123456 Moscow time, due a day later. */
export const sampleLinkRecord = (over: Partial<LinkRecord> = {}): LinkRecord => {
  const { expiresInMinutes: _minutes, ...link } = sampleNewLink();
  return {
    ...link,
    currency: 'RUB',
    status: 'pending',
    failureReason: null,
    amountRefunded: 0,
    gatewayProvider: null,
    gatewayPaymentId: null,
    toCurrency: null,
    network: null,
    depositAddress: null,
    payerCurrency: null,
    payerCryptoAmount: null,
    qr: null,
    expiresAt: new Date('2026-11-23T07:15:00.123Z'),
    paidAt: null,
    createdAt: new Date('2026-11-22T07:15:00.123Z'),
    createdAtMicros: 1_795_331_700_123_456n,
    updatedAt: new Date('2026-11-22T07:15:00.123Z'),
    ...over,
  };
};
