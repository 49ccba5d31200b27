import { formatDecimal, parseDecimal, subtractDecimal, valueAtInvoiceRate } from './decimal';

/** What an attempt asked of the buyer, as stored when the provider created the payment. */
export interface CryptoAsk {
  /** The invoice's amount in kopecks (the link's payer_amount). */
  readonly payerAmountKopecks: number;
  /** The coin amount the provider asked (`payer_crypto_amount`). */
  readonly payerCryptoAmount: string;
}

/**
 * The RUB value, in kopecks rounded down, of `arrivedCrypto` at the attempt's own rate (docs/product-decisions.md: the
 * invoice's amount scaled by payment_amount / payer_amount). For a PaymentState whose `arrivedKopecks` is null
 * although `arrivedCryptoAmount` is set: the provider's message did not say what was asked (a Heleket callback
 * carries no payer_amount), so the attempt's stored ask values it. Null when an amount is not a decimal.
 */
export function arrivedKopecksAtAskedRate(ask: CryptoAsk, arrivedCrypto: string): number | null {
  const asked = parseDecimal(ask.payerCryptoAmount);
  const arrived = parseDecimal(arrivedCrypto);
  if (asked === null || arrived === null || !Number.isSafeInteger(ask.payerAmountKopecks) || ask.payerAmountKopecks < 0) return null;
  const kopecks = valueAtInvoiceRate({ units: BigInt(ask.payerAmountKopecks), scale: 2 }, asked, arrived);
  return kopecks === null || kopecks > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(kopecks);
}

/** The coin amount still to send (asked − arrived), or null when nothing remains or an amount is not a decimal. */
export function remainingCrypto(ask: CryptoAsk, arrivedCrypto: string): string | null {
  const asked = parseDecimal(ask.payerCryptoAmount);
  const arrived = parseDecimal(arrivedCrypto);
  const left = asked !== null && arrived !== null ? subtractDecimal(asked, arrived) : null;
  return left === null || left.units === 0n ? null : formatDecimal(left);
}
