import { CRYPTO_NETWORKS } from '@pl/contracts';
import type { CreatePaymentRequest } from '../provider';
import { parseExchangeRates } from './exchange-rates';
import { SandboxProvider } from './sandbox.provider';

const provider = new SandboxProvider({
  rates: parseExchangeRates('USDT=95.00,BTC=6500000.00,ETH=250000.00,TON=450.00'),
  callbackSecret: 'test-sandbox-secret-0123456789abcdef0123',
});
const LINK = '3b0f6a52-5d0e-4c4f-9a51-2f8f1c7d9e10';
const OTHER = '9d1e2c3b-4a5f-4e6d-8c7b-6a5f4e3d2c1b';
const ctx = { timeoutMs: 1000 };
const request = (over: Partial<CreatePaymentRequest>): CreatePaymentRequest => ({
  orderId: `${LINK}-1`,
  linkId: LINK,
  method: 'crypto',
  network: 'USDT-TRC20',
  payerAmountKopecks: 10_000,
  description: null,
  merchantOrderId: null,
  expiresAt: new Date('2026-11-28T12:00:00Z'),
  returnUrl: null,
  ...over,
});
const crypto = (network: (typeof CRYPTO_NETWORKS)[number], linkId = LINK) => provider.createPayment(request({ linkId, network }), ctx);

describe('SandboxProvider', () => {
  it.each([
    ['USDT-TRC20', /^T[1-9A-HJ-NP-Za-km-z]{33}$/, /^tron:T\w{33}\?amount=1\.052632&token=TR7N/],
    ['USDT-ERC20', /^0x[0-9a-f]{40}$/, /^ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1\/transfer\?address=0x[0-9a-f]{40}&uint256=1052632$/],
    ['ETH-ETH', /^0x[0-9a-f]{40}$/, /^ethereum:0x[0-9a-f]{40}@1\?value=400000000000000$/],
    ['BTC-BTC', /^bc1q[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{38}$/, /^bitcoin:bc1q\w{38}\?amount=0\.00001539$/],
    ['USDT-TON', /^UQ[A-Za-z0-9_-]{46}$/, /^ton:\/\/transfer\/UQ[\w-]{46}\?jetton=EQ[\w-]+&amount=1052632$/],
    ['TON-TON', /^UQ[A-Za-z0-9_-]{46}$/, /^ton:\/\/transfer\/UQ[\w-]{46}\?amount=222222223$/],
  ] as const)('gives %s an address in the network style and a wallet URI for the amount', async (network, address, qr) => {
    const payment = await crypto(network);
    expect(payment.depositAddress).toMatch(address);
    expect(payment.qr).toMatch(qr);
    expect(payment.qr).toContain(payment.depositAddress);
    expect(payment.network).toBe(network);
    expect(payment.toCurrency).toBe(network.split('-')[0]);
    expect(payment.payerCurrency).toBe(payment.toCurrency);
    expect(payment.gatewayPaymentId).toBe(`sbx_${LINK}`);
  });

  it('gives the same payment for the same link and network whatever the attempt, another for another link or network', async () => {
    expect(await crypto('USDT-TRC20')).toEqual(await provider.createPayment(request({ orderId: `${LINK}-2` }), ctx));
    expect((await crypto('USDT-TRC20', OTHER)).depositAddress).not.toBe((await crypto('USDT-TRC20')).depositAddress);
    expect((await crypto('USDT-ERC20')).depositAddress).not.toBe((await crypto('ETH-ETH')).depositAddress);
  });

  it('answers SBP in roubles with an NSPK-style QR payload and no crypto amount', async () => {
    const payment = await provider.createPayment(request({ method: 'sbp', network: null, payerAmountKopecks: 10_150 }), ctx);
    expect(payment).toMatchObject({ toCurrency: 'RUB', payerCurrency: 'RUB', network: 'SBP', payerCryptoAmount: null });
    expect(payment.depositAddress).toMatch(/^AS1[A-Z0-9]{29}$/);
    expect(payment.qr).toMatch(/^https:\/\/qr\.nspk\.ru\/AS1[A-Z0-9]{29}\?type=02&bank=\d{12}&sum=10150&cur=RUB&crc=[0-9A-F]{4}$/);
  });

  it('reads the link back from its own payment ids only', () => {
    expect(provider.linkIdFor(`sbx_${LINK}`)).toBe(LINK);
    expect(provider.linkIdFor(LINK)).toBeNull();
    expect(provider.linkIdFor('sbx_not-a-uuid')).toBeNull();
    expect(provider.linkIdFor(`sbx_${LINK.toUpperCase()}`)).toBeNull();
  });

  it('accepts a refund at once as sbr_<refund id>, what its refund callbacks name, and keeps it pending', async () => {
    const refund = {
      refundId: OTHER,
      orderId: `${LINK}-1`,
      gatewayPaymentId: `sbx_${LINK}`,
      amountKopecks: 100,
      whole: false,
      destination: null,
      description: null,
    };
    const pending = { provider: 'sandbox', refundId: OTHER, gatewayRefundId: `sbr_${OTHER}`, status: 'pending', providerStatus: 'pending' };
    await expect(provider.createRefund(refund, ctx)).resolves.toEqual(pending);
    await expect(
      provider.getRefund({ refundId: OTHER, gatewayRefundId: `sbr_${OTHER}`, gatewayPaymentId: `sbx_${LINK}`, orderId: `${LINK}-1` }, ctx),
    ).resolves.toEqual(pending);
  });

  it('reads any of its payments as unpaid (callbacks settle them) and cancels nothing', async () => {
    const ref = { gatewayPaymentId: `sbx_${LINK}`, orderId: `${LINK}-1` };
    await expect(provider.getPayment(ref, ctx)).resolves.toMatchObject({ provider: 'sandbox', status: 'unpaid', orderId: `${LINK}-1` });
    await expect(provider.cancelPayment(ref, ctx)).resolves.toBeUndefined();
  });
});
