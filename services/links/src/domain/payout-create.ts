import type { CreatePayoutCommand, Identity, Mode } from '@pl/contracts';
import { forbidden, idempotencyConflict, internal, invalidField, notFound, payoutDailyLimit, payoutInsufficientAvailable } from '@pl/errors';
import { formatKopecks } from '@pl/money';
import { requireMerchant } from './access';
import { keyRefOf } from './idempotency';
import type { PayoutDeps, PayoutRail, PayoutRecord } from './payout';
import { payoutEvent } from './payout-view';
import type { IdempotencyKeyRef } from './ports';

/** A payout's answer; `replayed` when it is the one kept under the request's Idempotency-Key. */
export interface PayoutAnswer {
  payout: PayoutRecord;
  replayed: boolean;
}

/** Test payouts never leave the sandbox; live ones go to the rail of their destination's type. */
export const railOf = (livemode: boolean, type: CreatePayoutCommand['destination']['type']): PayoutRail =>
  !livemode ? 'sandbox' : type === 'crypto_address' ? 'heleket' : 'bank';

async function keptPayout(deps: PayoutDeps, mode: Mode, key: IdempotencyKeyRef): Promise<PayoutAnswer | null> {
  const kept = await deps.payouts.findKept(key.scope, key.keySha256);
  if (!kept) return null;
  if (kept.fingerprint !== key.fingerprint) throw idempotencyConflict();
  const payout = await deps.payouts.findById(kept.payoutId, { mode });
  if (!payout) throw internal('An Idempotency-Key keeps a payout that is not there');
  return { payout, replayed: true };
}

/**
 * A member's payout of a shop's balance (docs/payouts.md, "Payouts"), in the caller's mode. Checks in order: the
 * amount's bounds (400 naming `amount`), the shop (404, 403), then in the payout's own transaction, under the
 * account's payout lock and the shop balance's row lock, the available balance (422) and the account's 24 hours (422).
 * The gateway has judged the session, the hold of the account and the destination (active, the caller's) already.
 * It starts `pending_approval` at the approval threshold or when the account requires approval of every payout.
 */
export async function createPayout(deps: PayoutDeps, identity: Identity, command: CreatePayoutCommand): Promise<PayoutAnswer> {
  const who = requireMerchant(identity);
  const key = command.idempotency ? keyRefOf(who, command.idempotency) : null;
  if (key) {
    const kept = await keptPayout(deps, who.mode, key);
    if (kept) return kept;
  }
  const { settings } = deps;
  if (command.amount_kopecks < 10_000 || command.amount_kopecks > settings.maxKopecks) {
    throw invalidField('amount', `must be from 100.00 to ${formatKopecks(settings.maxKopecks)}`);
  }
  await deps.shops.getShop(command.shop_id, who);
  const livemode = who.mode === 'live';
  const needsApproval = command.requires_approval || command.amount_kopecks >= settings.approvalThresholdKopecks;
  const outcome = await deps.payouts.create(
    {
      id: deps.newId(),
      merchantId: who.merchant_id,
      shopId: command.shop_id,
      livemode,
      amount: command.amount_kopecks,
      fee: settings.feeKopecks,
      status: needsApproval ? 'pending_approval' : 'approved',
      description: command.description,
      destination: command.destination,
      rail: railOf(livemode, command.destination.type),
      createdBy: command.created_by,
      key,
      holdHours: settings.holdHours,
      dailyMaxKopecks: settings.dailyMaxKopecks,
    },
    (created) => payoutEvent('payout.created', created, deps.newId(), deps.eventsTopic),
  );
  switch (outcome.kind) {
    case 'created':
      return { payout: outcome.payout, replayed: false };
    case 'key_taken': {
      const kept = key ? await keptPayout(deps, who.mode, key) : null;
      if (!kept) throw internal('An Idempotency-Key was taken but has no record');
      return kept;
    }
    case 'insufficient_available':
      throw payoutInsufficientAvailable();
    case 'daily_limit':
      throw payoutDailyLimit();
    case 'period_taken':
      throw internal('A payout of a member claimed a schedule period');
  }
}

/** A payout the caller may see: of its mode (others are not found), its own (else 403). */
export async function getPayout(deps: PayoutDeps, identity: Identity, id: string): Promise<PayoutRecord> {
  const who = requireMerchant(identity);
  const payout = await deps.payouts.findById(id, { mode: who.mode });
  if (!payout) throw notFound('Payout not found');
  assertPayoutVisible(payout, who.merchant_id, who.shop_id);
  return payout;
}

function assertPayoutVisible(payout: PayoutRecord, merchantId: string, shopId: number | undefined): void {
  if (payout.merchantId !== merchantId || (shopId !== undefined && payout.shopId !== shopId)) {
    throw forbidden('Payout belongs to another merchant');
  }
}
