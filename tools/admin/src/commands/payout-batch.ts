import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { z } from 'zod';
import { formatMoscow, formatMoscowOrNull } from '@pl/contracts';
import { notFound, validationFailed } from '@pl/errors';
import type { PayoutBatch } from '@pl/links';
import { formatKopecks } from '@pl/money';
import type { Command } from '../command';
import { parseFlags, uuidFlag } from '../flags';
import { buildBatchFile } from '../payout-batch-file';
import { loadPayoutPayer } from '../payout-payer';
import { writeFileAtomically } from '../write-file-atomically';

const batchView = (b: PayoutBatch) => ({
  batch_id: b.id,
  count: b.payoutCount,
  total: formatKopecks(b.total),
  created_at: formatMoscowOrNull(b.createdAt),
  exported_at: formatMoscowOrNull(b.exportedAt),
  export_count: b.exportCount,
  sent_at: formatMoscowOrNull(b.sentAt),
});

/** `payout:batch:create` -> the new batch, or `{"batch_id": null, "count": 0}` when no payout waits. */
export const payoutBatchCreate: Command = {
  summary: 'gather every approved bank payout not yet in a batch into a new batch (they become processing)',
  help: `Usage: payout:batch:create

Gathers every approved live payout to a bank account that is in no batch yet into one new batch, numbers its
payment orders and moves the payouts to processing, in one transaction (they can no longer be canceled). Two
creates at once never share a payout: the second waits for the first and takes what is left.
Prints {"batch_id", "count", "total", ...}, or {"batch_id": null, "count": 0, "total": "0.00"} when none waits.
Next: payout:batch:export --batch ID --out FILE.`,
  async run(args, ctx) {
    parseFlags(args, {}, z.strictObject({}));
    const batch = await ctx.payoutBatches().create(randomUUID());
    return batch ? batchView(batch) : { batch_id: null, count: 0, total: formatKopecks(0) };
  },
};

const exportFlags = z.strictObject({ batch: uuidFlag('a batch'), out: z.string().min(1, { message: 'must name the file to write' }) });

/** `payout:batch:export --batch ID --out FILE`: the batch's 1C payment file, written whole or not at all. */
export const payoutBatchExport: Command = {
  summary: "write a batch's payment orders as a 1C file (1CClientBankExchange 1.03, windows-1251) for the bank",
  help: `Usage: payout:batch:export --batch ID --out FILE

Writes the batch's payment file for the platform's bank client: one payment order per payout for its amount, the
payout id in the purpose, the payer from PAYOUT_PAYER_NAME, PAYOUT_PAYER_INN, PAYOUT_PAYER_KPP (empty for a
12-digit INN), PAYOUT_PAYER_BIK, PAYOUT_PAYER_ACCOUNT and PAYOUT_PAYER_BANK (checked first, check digits included).
The file appears whole or not at all (written beside FILE, then renamed). Exporting again writes the same orders
with the same numbers and date, which the bank's client recognises as a repeated upload.
Prints {"batch_id", "file", "orders", "total", "order_date", "export_count", "sent_at", "bytes"}.
Next: upload FILE to the bank, then payout:batch:sent --batch ID.`,
  async run(args, ctx, io) {
    const payer = loadPayoutPayer(ctx.env);
    const f = parseFlags(args, { batch: { type: 'string' }, out: { type: 'string' } }, exportFlags);
    const batches = ctx.payoutBatches();
    const batch = await batches.find(f.batch);
    if (!batch) throw notFound('No batch has this id');
    // Dated the day of the first export on every export: the same file again, never a second set of orders.
    const at = new Date();
    const orderDate = batch.exportedAt ?? at;
    const orders = await batches.orders(batch.id);
    const file = buildBatchFile(payer, orders, orderDate, at);
    const out = resolve(f.out);
    await writeFileAtomically(out, file).catch((e: unknown) => {
      // The operator's mistake (no such directory, no right to write there): a flag to fix, not an internal error.
      const code = (e as { code?: unknown } | null)?.code;
      if (code !== 'ENOENT' && code !== 'EACCES' && code !== 'EROFS' && code !== 'ENOTDIR' && code !== 'EISDIR') throw e;
      const message = `cannot write ${out} (${code})`;
      throw validationFailed(`--out: ${message}`, [{ field: 'out', code: 'invalid_value', message }]);
    });
    const recorded = (await batches.recordExport(batch.id, at)) ?? batch;
    if (batch.sentAt) io.warn(`warning: batch ${batch.id} was marked sent at ${formatMoscowOrNull(batch.sentAt) ?? ''}; do not upload it twice`);
    return {
      batch_id: batch.id,
      file: out,
      orders: orders.length,
      total: formatKopecks(batch.total),
      // The orders' Moscow day, as the file writes it (formatMoscow's date part).
      order_date: formatMoscow(recorded.exportedAt ?? orderDate).slice(0, 10),
      export_count: recorded.exportCount,
      sent_at: formatMoscowOrNull(recorded.sentAt),
      bytes: file.length,
    };
  },
};

const batchFlags = z.strictObject({ batch: uuidFlag('a batch') });

/** `payout:batch:sent --batch ID`: the operator uploaded the file; the first time is kept. */
export const payoutBatchSent: Command = {
  summary: 'record that a batch\u2019s file was uploaded to the bank',
  help: `Usage: payout:batch:sent --batch ID

Records that the batch's exported file was uploaded to the bank's client (the first time is kept on a repeat).
A batch never exported is refused. The payouts stay processing until the bank's statement is imported
(payout:statement:import). Prints the batch.`,
  async run(args, ctx) {
    const f = parseFlags(args, { batch: { type: 'string' } }, batchFlags);
    const sent = await ctx.payoutBatches().recordSent(f.batch);
    if (sent === null) throw notFound('No batch has this id');
    if (sent === 'not_exported') {
      const message = 'has not been exported yet: run payout:batch:export first';
      throw validationFailed(`--batch: ${message}`, [{ field: 'batch', code: 'invalid_value', message }]);
    }
    return batchView(sent);
  },
};

const listFlags = z.strictObject({ limit: z.coerce.number().int().min(1).max(1000).default(20) });

/** `payout:batch:list [--limit N]` -> the newest batches with how far their payouts have got. */
export const payoutBatchList: Command = {
  summary: 'list the newest batches with their payouts processing, paid and failed',
  help: `Usage: payout:batch:list [--limit N]

Lists the newest batches (at most --limit, 20 by default), each with its count, total, when it was exported and
marked sent, and how many of its payouts are still processing, paid or failed. A batch sent long ago with payouts
still processing is one whose statement has not been imported. Prints {"batches": [...]}.`,
  async run(args, ctx) {
    const f = parseFlags(args, { limit: { type: 'string' } }, listFlags);
    const batches = await ctx.payoutBatches().list(f.limit);
    return { batches: batches.map((b) => ({ ...batchView(b), processing: b.processing, paid: b.paid, failed: b.failed })) };
  },
};
