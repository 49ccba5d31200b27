import { z } from 'zod';
import { unresolvedReason, unresolvedStatus } from '@pl/contracts';
import { unresolvedView, type UnresolvedPayment } from '@pl/links';
import type { Command } from '../command';
import { idFlag, parseFlags } from '../flags';

const flags = z.strictObject({
  reason: unresolvedReason.optional(),
  status: unresolvedStatus.optional(),
  'shop-id': idFlag.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** An unresolved payment for the operator: the API's object, with whose it is and what settling it credits. */
export const unresolvedOutput = (u: UnresolvedPayment): object => ({
  ...unresolvedView(u),
  merchant_id: u.merchantId,
  link_status: u.linkStatus,
  provider_order_id: u.providerOrderId,
});

/**
 * `unresolved:list [--reason R] [--status S] [--shop-id N] [--limit N]` -> `{ "unresolved_payments": [...] }`,
 * newest first, of both modes: money that arrived but did not simply pay a pending link (docs/operations.md).
 */
export const unresolvedList: Command = {
  summary: 'list unresolved payments (late, duplicate, underpaid, overpaid, aml_hold), newest first',
  help: `Usage: unresolved:list [--reason late|duplicate|underpaid|overpaid|aml_hold] [--status unresolved|settled|refunded]
                       [--shop-id N] [--limit N]

Lists money that arrived but did not simply pay a pending link, newest first, of both modes (at most --limit,
100 by default). Resolve one with unresolved:resolve. Prints {"unresolved_payments": [...]}.`,
  async run(args, ctx) {
    const f = parseFlags(
      args,
      { reason: { type: 'string' }, status: { type: 'string' }, 'shop-id': { type: 'string' }, limit: { type: 'string' } },
      flags,
    );
    const found = await ctx.latePayments().listBy({
      merchantId: null,
      livemode: null,
      shopId: f['shop-id'] ?? null,
      reason: f.reason ?? null,
      status: f.status ?? null,
      before: null,
      limit: f.limit,
    });
    return { unresolved_payments: found.map(unresolvedOutput) };
  },
};
