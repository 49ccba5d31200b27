import type { PayoutSyncReport } from '@pl/contracts';
import { isAppError, notFound } from '@pl/errors';
import type { CreatePayoutResult, HeleketPayouts, PayoutStatus } from '@pl/providers';
import type { HeleketPayout, HeleketPayoutStore } from './heleket-payout-store';
import type { PayoutRecord } from './payout';
import { markPayoutPaid, type PayoutTransitionDeps } from './payout-transitions';
import { payoutEvent } from './payout-view';
import { LINKS_OWN_MODE, type CrashPoints } from './ports';

/**
 * Crypto payouts at Heleket (docs/payouts.md, "How a payout is paid"; ADR 0044). The order of every hand-over:
 * the payout is marked `processing` and committed, then `POST /v1/payout` is sent with no transaction open and no row
 * lock held, then its answer is recorded. An answer that never came (timeout, 5xx, links killed mid-call) is never
 * followed by a blind create: status sync asks `payout/info` by the order id first, and sends the create again (the
 * same order id, which Heleket takes once) only when Heleket shows none.
 */
export interface HeleketPayoutDeps extends PayoutTransitionDeps {
  heleket: HeleketPayouts;
  rail: HeleketPayoutStore;
  /** `{PUBLIC_BASE_URL}/callbacks/v1/heleket-payouts`. */
  callbackUrl: string;
  /** `PROVIDER_REQUEST_TIMEOUT_MS`: the deadline of each call. */
  providerTimeoutMs: number;
  now: () => Date;
  crashPoints?: CrashPoints;
}

/** Heleket's word on a payout, from a create's answer, a `payout/info` read or a verified webhook. */
export interface HeleketWord {
  providerPayoutId: string;
  status: PayoutStatus;
  providerStatus: string;
  failureReason: string | null;
}

const isCode = (e: unknown, code: string): boolean => isAppError(e) && e.code === code;
const describe = (e: unknown): string => (e instanceof Error ? e.message : 'error').slice(0, 500);

/**
 * processing → failed, and only from processing: Heleket's statuses are final, so a `fail` heard after `paid` (a
 * replay, a read racing a callback) never gives back money Heleket has sent. Money back, `payout.failed`.
 */
async function failAtHeleket(deps: HeleketPayoutDeps, id: string, reason: string): Promise<PayoutRecord | null> {
  const result = await deps.payouts.move({
    id,
    to: 'failed',
    from: ['processing'],
    by: null,
    failureReason: reason.slice(0, 500),
    notByCreator: false,
    merchantId: null,
    eventOf: (p) => payoutEvent('payout.failed', p, deps.newId(), deps.eventsTopic),
  });
  return result.kind === 'not_found' ? null : result.payout;
}

/**
 * Applies Heleket's word: its uuid and status kept, then `paid` → paid, `failed` → failed, `processing` → nothing
 * more. Each move is idempotent (a repeat changes nothing); a word that contradicts a final state is not applied.
 * Returns the payout as it is now, or null when it is not on the Heleket rail.
 */
async function applyHeleketWord(deps: HeleketPayoutDeps, id: string, word: HeleketWord): Promise<PayoutRecord | null> {
  await deps.rail.recordAnswer(id, word.providerPayoutId, word.providerStatus.slice(0, 64));
  if (word.status === 'failed') return failAtHeleket(deps, id, word.failureReason ?? word.providerStatus);
  if (word.status === 'paid') {
    try {
      return await markPayoutPaid(deps, id);
    } catch (e) {
      if (!isCode(e, 'payout.err.already_final')) throw e;
    }
  }
  return deps.payouts.findById(id, LINKS_OWN_MODE);
}

/** A create's outcome: Heleket's word applied; a refusal fails the payout with Heleket's reason; unknown waits for sync. */
async function applyCreate(deps: HeleketPayoutDeps, id: string, result: CreatePayoutResult): Promise<void> {
  switch (result.outcome) {
    case 'accepted':
    case 'already_exists':
      await applyHeleketWord(deps, id, result);
      return;
    case 'refused':
      await failAtHeleket(deps, id, result.message);
      return;
    case 'unknown':
      // Never sent again blind: status sync reads payout/info by the order id first (readAndComplete).
      return;
  }
}

async function sendCreate(deps: HeleketPayoutDeps, payout: HeleketPayout): Promise<CreatePayoutResult> {
  const result = await deps.heleket.createPayout(
    { payoutId: payout.id, amountKopecks: payout.amount, network: payout.network, address: payout.address, callbackUrl: deps.callbackUrl },
    { timeoutMs: deps.providerTimeoutMs },
  );
  if (result.outcome === 'accepted') deps.crashPoints?.reached('links.after-payout-create-before-record');
  await applyCreate(deps, payout.id, result);
  return result;
}

/**
 * The worker's hand-over of one approved payout: processing committed first (a payout another replica moved, or a
 * member canceled meanwhile, is left alone), then the create. Returns the create's outcome, or null when not handed.
 */
export async function handOverToHeleket(deps: HeleketPayoutDeps, payout: HeleketPayout): Promise<CreatePayoutResult['outcome'] | null> {
  const moved = await deps.payouts.move({
    id: payout.id,
    to: 'processing',
    from: ['approved'],
    by: null,
    failureReason: null,
    notByCreator: false,
    merchantId: null,
    eventOf: null,
  });
  if (moved.kind !== 'moved') return null;
  deps.crashPoints?.reached('links.after-payout-processing');
  return (await sendCreate(deps, payout)).outcome;
}

/**
 * Status sync of one processing Heleket payout: `payout/info` by its order id, and Heleket's word applied. When
 * Heleket shows none and no answer ever named one, the create never arrived: it is sent again under the same order id
 * once the first call is certainly over (twice its deadline after `processing`), never while it may be in flight.
 */
async function readAndComplete(deps: HeleketPayoutDeps, payout: HeleketPayout): Promise<{ providerStatus: string | null; created: boolean }> {
  const found = await deps.heleket.payoutInfo(payout.id, { timeoutMs: deps.providerTimeoutMs });
  await deps.rail.read(payout.id);
  if (found.status !== 'not_found') {
    await applyHeleketWord(deps, payout.id, found);
    return { providerStatus: found.providerStatus, created: false };
  }
  if (payout.providerPayoutId !== null) {
    // Heleket named this payout before and now shows none: nothing is sent again (it may still pay the first); an
    // operator looks it up at Heleket. It stays processing and is read every interval.
    throw new Error(`Heleket shows no payout of this order id, though it named ${payout.providerPayoutId.slice(0, 64)} before`);
  }
  const processingAt = payout.processingAt?.getTime() ?? 0;
  if (deps.now().getTime() <= processingAt + 2 * deps.providerTimeoutMs) return { providerStatus: null, created: false };
  const result = await sendCreate(deps, payout);
  return { providerStatus: result.outcome === 'accepted' || result.outcome === 'already_exists' ? result.providerStatus : null, created: true };
}

/** Status sync of one processing Heleket payout, as the report carries it; a read that failed is tried next interval. */
export async function syncHeleketPayout(deps: HeleketPayoutDeps, payout: HeleketPayout): Promise<PayoutSyncReport> {
  let outcome: { providerStatus: string | null; created: boolean } = { providerStatus: null, created: false };
  let error: string | null = null;
  if (payout.status === 'processing') {
    try {
      outcome = await readAndComplete(deps, payout);
    } catch (e) {
      error = describe(e);
    }
  }
  const after = await deps.rail.find(payout.id);
  return {
    id: payout.id,
    provider_payout_id: after?.providerPayoutId ?? payout.providerPayoutId,
    provider_status: outcome.providerStatus?.slice(0, 64) ?? null,
    status_before: payout.status,
    status_after: after?.status ?? payout.status,
    created: outcome.created,
    error,
  };
}

/**
 * A verified payout webhook, forwarded by the gateway: Heleket's word applied as a read's would be. A payout not on the
 * Heleket rail (a test payout, a bank one, an unknown id) is not found: a webhook can move only what Heleket was sent.
 */
export async function settleHeleketPayout(deps: HeleketPayoutDeps, payoutId: string, word: HeleketWord): Promise<PayoutRecord> {
  const payout = await deps.rail.find(payoutId);
  const now = payout ? await applyHeleketWord(deps, payout.id, word) : null;
  if (!now) throw notFound('Payout not found on the Heleket rail');
  return now;
}

/** The operator's `payment:sync --payout ID`: one Heleket payout read now (a payout in another state is reported as is). */
export async function syncOneHeleketPayout(deps: HeleketPayoutDeps, id: string): Promise<PayoutSyncReport> {
  const payout = await deps.rail.find(id);
  if (!payout) throw notFound('Payout not found on the Heleket rail');
  return syncHeleketPayout(deps, payout);
}
