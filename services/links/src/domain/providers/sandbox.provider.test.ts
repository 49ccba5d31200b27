import { CRYPTO_NETWORKS } from '@pl/contracts';
import { parseExchangeRates } from './exchange-rates';
import { SandboxProvider } from './sandbox.provider';

const provider = new SandboxProvider(parseExchangeRates('USDT=95.00,BTC=6500000.00,ETH=250000.00,TON=450.00'));
const LINK = '3b0f6a52-5d0e-4c4f-9a51-2f8f1c7d9e10';
const OTHER = '9d1e2c3b-4a5f-4e6d-8c7b-6a5f4e3d2c1b';
const crypto = (network: (typeof CRYPTO_NETWORKS)[number], linkId = LINK) =>
  provider.createPayment({ linkId, method: 'crypto', network, payerAmountKopecks: 10_000 });

describe('SandboxProvider', () => {
  it.each([
    ['USDT-TRC20', /^T[1-9A-HJ-NP-Za-km-z]{33}$/, /^tron:T\w{33}\?amount=1\.052632&token=TR7N/],
    ['USDT-ERC20', /^0x[0-9a-f]{40}$/, /^ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1\/transfer\?address=0x[0-9a-f]{40}&uint256=1052632$/],
    ['ETH-ETH', /^0x[0-9a-f]{40}$/, /^ethereum:0x[0-9a-f]{40}@1\?value=400000000000000$/],
    ['BTC-BTC', /^bc1q[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{38}$/, /^bitcoin:bc1q\w{38}\?amount=0\.00001539$/],
    ['USDT-TON', /^UQ[A-Za-z0-9_-]{46}$/, /^ton:\/\/transfer\/UQ[\w-]{46}\?jetton=EQ[\w-]+&amount=1052632$/],
    ['TON-TON', /^UQ[A-Za-z0-9_-]{46}$/, /^ton:\/\/transfer\/UQ[\w-]{46}\?amount=222222223$/],
  ] as const)('gives %s an address in the network style and a wallet URI for the amount', (network, address, qr) => {
    const payment = crypto(network);
    expect(payment.deposit_address).toMatch(address);
    expect(payment.qr).toMatch(qr);
    expect(payment.qr).toContain(payment.deposit_address);
    expect(payment.network).toBe(network);
    expect(payment.to_currency).toBe(network.split('-')[0]);
    expect(payment.payer_currency).toBe(payment.to_currency);
    expect(payment.gateway_payment_id).toBe(`sbx_${LINK}`);
  });

  it('gives the same payment for the same link and network, another for another link or network', () => {
    expect(crypto('USDT-TRC20')).toEqual(crypto('USDT-TRC20'));
    expect(crypto('USDT-TRC20', OTHER).deposit_address).not.toBe(crypto('USDT-TRC20').deposit_address);
    expect(crypto('USDT-ERC20').deposit_address).not.toBe(crypto('ETH-ETH').deposit_address);
  });

  it('answers SBP in roubles with an NSPK-style QR payload and no crypto amount', () => {
    const payment = provider.createPayment({ linkId: LINK, method: 'sbp', network: null, payerAmountKopecks: 10_150 });
    expect(payment).toMatchObject({ to_currency: 'RUB', payer_currency: 'RUB', network: 'SBP', payer_crypto_amount: null });
    expect(payment.deposit_address).toMatch(/^AS1[A-Z0-9]{29}$/);
    expect(payment.qr).toMatch(/^https:\/\/qr\.nspk\.ru\/AS1[A-Z0-9]{29}\?type=02&bank=\d{12}&sum=10150&cur=RUB&crc=[0-9A-F]{4}$/);
  });

  it('reads the link back from its own payment ids only', () => {
    expect(provider.linkIdFor(`sbx_${LINK}`)).toBe(LINK);
    expect(provider.linkIdFor(LINK)).toBeNull();
    expect(provider.linkIdFor('sbx_not-a-uuid')).toBeNull();
    expect(provider.linkIdFor(`sbx_${LINK.toUpperCase()}`)).toBeNull();
  });

  it('accepts a refund at once as sbr_<refund id>, what its refund callbacks name', () => {
    const refund = { refundId: OTHER, linkId: LINK, gatewayPaymentId: `sbx_${LINK}`, amountKopecks: 100, destination: null };
    expect(provider.createRefund(refund)).toEqual({ gateway_refund_id: `sbr_${OTHER}` });
  });
});
