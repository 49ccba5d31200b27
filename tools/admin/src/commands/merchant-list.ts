import { z } from 'zod';
import { cursorBigint, cursorCodec, cursorUuid, formatMoscow } from '@pl/contracts';
import type { Merchant } from '@pl/gateway';
import type { Command } from '../command';
import { parseFlags } from '../flags';
import { PAGE_HELP, pageFlags, pageOf, pageOptions, positionOf } from '../paging';

/** Opaque: base64url of `v1:<created_at in µs>:<id>`, the last merchant of the page. */
const merchantCursor = cursorCodec<{ createdAtMicros: bigint; id: string }>({ createdAtMicros: cursorBigint(18), id: cursorUuid });

/** A merchant for the operator: never its password hash nor its keys. */
const merchantOutput = (m: Merchant): object => ({
  id: m.id,
  email: m.email,
  email_confirmed: m.emailConfirmed,
  created_at: formatMoscow(m.createdAt),
});

/** `merchant:list [--limit N] [--cursor C]` -> `{ "merchants": [...], "has_more", "next_cursor" }`, newest first. */
export const merchantList: Command = {
  summary: 'list merchants, newest first (paged)',
  help: `Usage: merchant:list [--limit N] [--cursor C]

Lists merchant accounts, newest first.

${PAGE_HELP}

Prints {"merchants": [{"id", "email", "email_confirmed", "created_at"}], "has_more", "next_cursor"}.`,
  async run(args, ctx) {
    const f = parseFlags(args, pageOptions, z.strictObject(pageFlags));
    const rows = await ctx.accounts().listMerchants({ after: positionOf(merchantCursor, f.cursor), limit: f.limit + 1 });
    return pageOf('merchants', rows, f.limit, merchantOutput, (last) => merchantCursor.encode(last));
  },
};
