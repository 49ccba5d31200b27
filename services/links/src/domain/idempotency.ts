import { idempotencyScope, type IdempotencyClaim, type MerchantIdentity } from '@pl/contracts';
import { idempotencyConflict, internal } from '@pl/errors';
import type { LinkRecord } from './link';
import type { IdempotencyKeyRef, IdempotencyRecords } from './ports';

/** The answer to a request that carried an Idempotency-Key; `replayed` when it is the kept answer of an earlier one. */
export interface LinkAnswer {
  link: LinkRecord;
  replayed: boolean;
}

/** The key as kept here: scoped by the verified identity, never by a scope the caller names. */
export const keyRefOf = (who: MerchantIdentity, claim: IdempotencyClaim): IdempotencyKeyRef => ({
  scope: idempotencyScope(who, claim.route),
  keySha256: claim.key_sha256,
  fingerprint: claim.fingerprint,
});

/** The answer kept under the key, or null when it has none; the key reused for another request is a conflict. */
export async function keptAnswer(records: IdempotencyRecords, key: IdempotencyKeyRef): Promise<LinkAnswer | null> {
  const kept = await records.find(key.scope, key.keySha256);
  if (!kept) return null;
  if (kept.fingerprint !== key.fingerprint) {
    throw idempotencyConflict();
  }
  return { link: kept.link, replayed: true };
}

/** The answer of the request that took the key first: our write failed only after it committed, so it is there. */
export async function winnerAnswer(records: IdempotencyRecords, key: IdempotencyKeyRef): Promise<LinkAnswer> {
  const kept = await keptAnswer(records, key);
  if (!kept) throw internal('An Idempotency-Key was taken but has no record');
  return kept;
}
