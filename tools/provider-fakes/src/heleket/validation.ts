/**
 * The documented field rules of create and refund (the provider's published API (docs/providers.md), 1.9), answered as Heleket answers
 * a validation failure: HTTP 422 `{ state: 1, errors: { field: ["validation.<rule>"] } }`.
 */
export type Body = Readonly<Record<string, unknown>>;
type Errors = Record<string, string[]>;

const DECIMAL = /^\d+(\.\d+)?$/;
const ALPHA_DASH = /^[A-Za-z0-9_-]+$/;
const CRYPTO = new Set(['USDT', 'BTC', 'ETH', 'TON', 'LTC', 'TRX', 'BNB', 'SOL']);

function isUrl(v: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}

function check(errors: Errors, field: string, rule: string | null): void {
  if (rule !== null) (errors[field] ??= []).push(`validation.${rule}`);
}

const string = (v: unknown, required: boolean): string | null =>
  v === undefined || v === null ? (required ? 'required' : null) : typeof v === 'string' ? null : 'string';

function url(v: unknown): string | null {
  if (v === undefined) return null;
  if (typeof v !== 'string') return 'string';
  if (v.length < 6 || v.length > 255) return 'between.string';
  return isUrl(v) ? null : 'url';
}

export function validateCreate(body: Body): Errors | null {
  const errors: Errors = {};
  const { amount, order_id: orderId, to_currency: toCurrency, lifetime, additional_data: data } = body;
  check(errors, 'amount', string(amount, true) ?? (DECIMAL.test(amount as string) ? null : 'numeric'));
  check(errors, 'currency', string(body.currency, true));
  check(errors, 'order_id', string(orderId, true) ?? (ALPHA_DASH.test(orderId as string) && (orderId as string).length <= 128 ? null : 'alpha_dash'));
  check(errors, 'to_currency', string(toCurrency, false) ?? (toCurrency === undefined || CRYPTO.has(toCurrency as string) ? null : 'in'));
  check(errors, 'network', string(body.network, false));
  for (const field of ['url_return', 'url_success', 'url_callback']) check(errors, field, url(body[field]));
  const lifetimeOk = lifetime === undefined || (Number.isInteger(lifetime) && (lifetime as number) >= 300 && (lifetime as number) <= 43200);
  check(errors, 'lifetime', lifetimeOk ? null : 'between.numeric');
  check(errors, 'is_payment_multiple', body.is_payment_multiple === undefined || typeof body.is_payment_multiple === 'boolean' ? null : 'boolean');
  check(errors, 'additional_data', string(data, false) ?? (data === undefined || (data as string).length <= 255 ? null : 'max.string'));
  return Object.keys(errors).length === 0 ? null : errors;
}

export function validateRefund(body: Body): Errors | null {
  const errors: Errors = {};
  check(errors, 'address', string(body.address, true));
  check(errors, 'is_subtract', typeof body.is_subtract === 'boolean' ? null : 'required');
  if (body.uuid === undefined && body.order_id === undefined) {
    check(errors, 'uuid', 'required_without');
    check(errors, 'order_id', 'required_without');
  }
  const { amount } = body;
  check(
    errors,
    'amount',
    amount === undefined || amount === null || (typeof amount === 'string' && amount.length <= 40 && DECIMAL.test(amount)) ? null : 'numeric',
  );
  return Object.keys(errors).length === 0 ? null : errors;
}
