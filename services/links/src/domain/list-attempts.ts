import { formatMoscow, type Identity, type PaymentAttemptList } from '@pl/contracts';
import type { AttemptSummary } from './attempt';
import { getLink } from './get-link';
import type { LinkDeps } from './ports';

/** The newest attempts a read lists: a buyer may select again and again, and the reply must fit one NATS message. */
export const ATTEMPTS_SHOWN = 50;

const toPaymentAttempt = (a: AttemptSummary): PaymentAttemptList['attempts'][number] => ({
  n: a.n,
  order_id: a.orderId,
  provider: a.provider,
  method: a.method,
  network: a.networkAsked,
  gateway_payment_id: a.gatewayPaymentId,
  state: a.state,
  // A refusal's message can be long; the dashboard shows a line of it, the attempt keeps it whole.
  provider_status: a.providerStatus === null ? null : a.providerStatus.slice(0, 200),
  created_at: formatMoscow(a.createdAt),
  updated_at: formatMoscow(a.updatedAt),
});

export const toPaymentAttemptList = (attempts: readonly AttemptSummary[]): PaymentAttemptList => ({ attempts: attempts.map(toPaymentAttempt) });

/**
 * A link's attempts at its providers, the newest {@link ATTEMPTS_SHOWN} oldest first, for whoever may read the link
 * (the same 404 and 403 as reading it).
 */
export async function listAttempts(deps: LinkDeps, identity: Identity, id: string): Promise<PaymentAttemptList> {
  const link = await getLink(deps, identity, id);
  return toPaymentAttemptList(await deps.attempts.listForLink(link.id, ATTEMPTS_SHOWN));
}
