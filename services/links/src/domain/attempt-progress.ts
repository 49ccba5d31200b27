import type { SettlePaymentCommand } from '@pl/contracts';
import { remainingCrypto } from '@pl/providers';
import type { Attempt, AttemptProgress } from './attempt';
import type { LinkDeps } from './ports';

const PROGRESS_STATUSES: ReadonlySet<string> = new Set<AttemptProgress['status']>(['unpaid', 'confirming', 'partially_paid']);

/** The progress a provider's status says, or null for a status that ends the attempt (or moves its link). */
function progressOf(status: string, remainingCryptoAmount: string | null | undefined): AttemptProgress | null {
  if (!PROGRESS_STATUSES.has(status)) return null;
  const progress = status as AttemptProgress['status'];
  return { status: progress, remainingCryptoAmount: progress === 'partially_paid' ? (remainingCryptoAmount ?? null) : null };
}

/** What remains of the attempt's ask once `arrived` came, when the provider did not say itself; null when unknown. */
function remainingOfAsk(attempt: Attempt, arrived: string | null | undefined): string | null {
  const asked = attempt.payment?.payerCryptoAmount ?? null;
  if (asked === null || arrived === null || arrived === undefined) return null;
  return remainingCrypto({ payerAmountKopecks: attempt.payerAmount, payerCryptoAmount: asked }, arrived);
}

/** A status that leaves the link pending, kept on its attempt for the checkout (confirming, what remains to send). */
export async function recordProgress(deps: LinkDeps, attempt: Attempt, command: SettlePaymentCommand): Promise<void> {
  const progress = progressOf(command.status, command.remaining_crypto_amount ?? remainingOfAsk(attempt, command.arrived_crypto_amount));
  if (progress) await deps.attempts.recordProgress(attempt, progress, command.provider_status ?? null);
}
