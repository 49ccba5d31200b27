import { createHmac } from 'node:crypto';
import { CRYPTO_NETWORKS, type CryptoNetwork } from '@pl/contracts';
import type {
  AvailableMethods,
  CallContext,
  CallbackRequest,
  CallbackVerdict,
  CreatePaymentRequest,
  CreateRefundRequest,
  PaymentProvider,
  PaymentState,
  ProviderPayment,
  RefundRef,
  RefundState,
} from '../provider';
import { verifySandboxCallback } from './callback';
import { coinUnitsFor, formatCoinUnits, type Coin, type ExchangeRates } from './exchange-rates';

export const SANDBOX_PROVIDER = 'sandbox' as const;
const ID_PREFIX = 'sbx_';
/** The sandbox's refund ids: `sbr_<refund id>`, what its refund callbacks name. */
const REFUND_ID_PREFIX = 'sbr_';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Not a secret: it only has to be the same in every replica so addresses are stable. */
const DERIVATION_KEY = 'pl-sandbox-deposit-addresses-v1';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const HEX = '0123456789abcdef';
const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

// Real token contracts, so wallets that scan a sandbox QR recognise the token (the addresses are fake).
const USDT_TRC20_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_ERC20_CONTRACT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const USDT_TON_JETTON = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';

/** `length` characters of `alphabet` derived from (link, purpose) by HMAC; the slight modulo bias is harmless here. */
function derive(linkId: string, purpose: string, alphabet: string, length: number): string {
  let out = '';
  for (let block = 0; out.length < length; block += 1) {
    const bytes = createHmac('sha256', DERIVATION_KEY).update(`${purpose}:${linkId}:${block}`).digest();
    for (const b of bytes) {
      if (out.length === length) break;
      out += alphabet.charAt(b % alphabet.length);
    }
  }
  return out;
}

/** A deposit address in the style of the network (right prefix, alphabet and length; no real checksum). */
function depositAddress(linkId: string, network: CryptoNetwork): string {
  switch (network) {
    case 'USDT-TRC20':
      return `T${derive(linkId, network, BASE58, 33)}`;
    case 'USDT-ERC20':
    case 'ETH-ETH':
      return `0x${derive(linkId, network, HEX, 40)}`;
    case 'USDT-TON':
    case 'TON-TON':
      return `UQ${derive(linkId, network, BASE64URL, 46)}`;
    case 'BTC-BTC':
      return `bc1q${derive(linkId, network, BECH32, 38)}`;
  }
}

/** The payment URI wallets understand for the network (TRON, EIP-681, BIP-21, TON deeplinks). */
function paymentUri(network: CryptoNetwork, address: string, units: bigint, amount: string): string {
  switch (network) {
    case 'USDT-TRC20':
      return `tron:${address}?amount=${amount}&token=${USDT_TRC20_CONTRACT}`;
    case 'USDT-ERC20':
      return `ethereum:${USDT_ERC20_CONTRACT}@1/transfer?address=${address}&uint256=${units}`;
    case 'ETH-ETH':
      return `ethereum:${address}@1?value=${units}`;
    case 'BTC-BTC':
      return `bitcoin:${address}?amount=${amount}`;
    case 'USDT-TON':
      return `ton://transfer/${address}?jetton=${USDT_TON_JETTON}&amount=${units}`;
    case 'TON-TON':
      return `ton://transfer/${address}?amount=${units}`;
  }
}

const coinOf = (network: CryptoNetwork): Coin => network.slice(0, network.indexOf('-')) as Coin;

/** What the sandbox needs: the rates it prices crypto in, and the secret its callbacks are signed with. */
export interface SandboxSettings {
  readonly rates: ExchangeRates;
  readonly callbackSecret: string;
}

const EVERY_METHOD: AvailableMethods = {
  sbp: true,
  networks: CRYPTO_NETWORKS.map((network) => ({ network, minAmount: null, maxAmount: null })),
};

/**
 * The provider that ships with the project: no money moves. Everything is a pure function of the link
 * and the configured rates, so a re-selection (or another replica) gives the same address and QR, and every
 * attempt of a link has the same payment id `sbx_<link id>`: what its callbacks, the checkout's simulator and the
 * operators' `payment:confirm` name, selected or not. It answers at once and is never unavailable.
 */
export class SandboxProvider implements PaymentProvider {
  readonly name = SANDBOX_PROVIDER;

  constructor(private readonly settings: SandboxSettings) {}

  /** The payment id of `linkId`'s payments, whichever method and attempt: what the callback names, selected or not. */
  paymentIdFor(linkId: string): string {
    return `${ID_PREFIX}${linkId}`;
  }

  /** The link a sandbox payment id names (its own derivation), or null for any other id. */
  linkIdFor(gatewayPaymentId: string): string | null {
    if (!gatewayPaymentId.startsWith(ID_PREFIX)) return null;
    const id = gatewayPaymentId.slice(ID_PREFIX.length);
    return UUID.test(id) ? id : null;
  }

  createPayment(request: CreatePaymentRequest, _ctx: CallContext): Promise<ProviderPayment> {
    return Promise.resolve(this.paymentOf(request));
  }

  private paymentOf(request: CreatePaymentRequest): ProviderPayment {
    const gatewayPaymentId = this.paymentIdFor(request.linkId);
    if (request.method === 'sbp' || request.network === null) {
      // An NSPK-style QR id and payload: 32 upper-case characters, amount in kopecks.
      const qrId = `AS1${derive(request.linkId, 'SBP', UPPER_ALNUM, 29)}`;
      const crc = derive(request.linkId, `SBP-CRC:${request.payerAmountKopecks}`, HEX, 4).toUpperCase();
      return {
        gatewayPaymentId,
        depositAddress: qrId,
        qr: `https://qr.nspk.ru/${qrId}?type=02&bank=100000000111&sum=${request.payerAmountKopecks}&cur=RUB&crc=${crc}`,
        toCurrency: 'RUB',
        payerCurrency: 'RUB',
        payerCryptoAmount: null,
        network: 'SBP',
      };
    }
    const coin = coinOf(request.network);
    const units = coinUnitsFor(request.payerAmountKopecks, coin, this.settings.rates);
    const amount = formatCoinUnits(units, coin);
    const address = depositAddress(request.linkId, request.network);
    return {
      gatewayPaymentId,
      depositAddress: address,
      qr: paymentUri(request.network, address, units, amount),
      toCurrency: coin,
      payerCurrency: coin,
      payerCryptoAmount: amount,
      network: request.network,
    };
  }

  /** The sandbox keeps no state: its payments are settled by their callbacks only, so a read finds one unpaid. */
  getPayment(ref: { readonly gatewayPaymentId: string; readonly orderId: string }, _ctx: CallContext): Promise<PaymentState | null> {
    return Promise.resolve({
      provider: SANDBOX_PROVIDER,
      gatewayPaymentId: ref.gatewayPaymentId,
      orderId: ref.orderId,
      status: 'unpaid',
      providerStatus: 'pending',
      arrivedKopecks: null,
      arrivedCryptoAmount: null,
      remainingCryptoAmount: null,
      refund: null,
    });
  }

  /** Nothing to cancel: a sandbox payment is an address derived from the link, held nowhere. */
  cancelPayment(_ref: { readonly gatewayPaymentId: string; readonly orderId: string }, _ctx: CallContext): Promise<void> {
    return Promise.resolve();
  }

  /** Accepts every refund at once, as `sbr_<refund id>`; it settles on its callback (or the simulator, or `refund:settle`). */
  createRefund(request: CreateRefundRequest, _ctx: CallContext): Promise<RefundState> {
    return Promise.resolve(this.pendingRefund(request.refundId));
  }

  /** A sandbox refund stays pending until its callback says otherwise. */
  getRefund(ref: RefundRef, _ctx: CallContext): Promise<RefundState | null> {
    return Promise.resolve(this.pendingRefund(ref.refundId));
  }

  private pendingRefund(refundId: string): RefundState {
    return { provider: SANDBOX_PROVIDER, refundId, gatewayRefundId: `${REFUND_ID_PREFIX}${refundId}`, status: 'pending', providerStatus: 'pending' };
  }

  verifyCallback(request: CallbackRequest): CallbackVerdict {
    return verifySandboxCallback(this.settings.callbackSecret, request);
  }

  /** Every method, always: the sandbox has no limits and is never down. */
  availableMethods(_ctx: CallContext): Promise<AvailableMethods> {
    return Promise.resolve(EVERY_METHOD);
  }
}
