import { createHmac } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { Db } from '@pl/db';
import { verifyLedger } from '@pl/links';
import { createLogger } from '@pl/telemetry';
import { check, measureClosed, type BenchContext } from '../context';

/**
 * Payouts in flight: all of one account, whose payouts queue on its payout lock one transaction after another
 * (docs/payouts.md: 50 at once never pass available), so more connections measure that queue, not a payout. A
 * person makes them one click at a time; 4 is already more than one account's members do at once.
 */
const PAYOUT_CONNECTIONS = 4;
/** What a payout's creation may take at p99: a member's click in the dashboard, after the step-up dialog. */
const P99_MS = 250;
/** One link's credit that the run's payouts (100.00 each, no fee) cannot use up: 9,900 of them at the merchant's 1 %. */
const CREDIT = '1000000.00';
const PAYOUT = '100.00';
const BANK = { recipient_name: 'ООО «Ромашка»', inn: '7707083893', kpp: '773601001', bik: '044525225', account: '40702810238000001234' };

async function call(
  ctx: BenchContext,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: object,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${ctx.sys.gatewayUrl}${path}`, {
    method,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/**
 * The owner's session, stepped up as the dashboard's dialog does it: a password sign-in, then TOTP enrolled and
 * confirmed with the current code (the confirmation counts as a verification: 10 minutes of step-up).
 */
async function steppedUpSession(ctx: BenchContext, owner: { email: string; password: string }): Promise<Record<string, string>> {
  const login = await call(ctx, 'POST', '/api/v1/auth/login', {}, { email: owner.email, password: owner.password });
  const auth = { Authorization: `Bearer ${login.body.session_token as string}` };
  const started = await call(ctx, 'POST', '/api/v1/me/2fa/totp', auth, {});
  const code = TOTP.generate({ secret: Secret.fromBase32(started.body.secret as string), algorithm: 'SHA1', digits: 6, period: 30 });
  await call(ctx, 'POST', '/api/v1/me/2fa/totp/confirm', auth, { code });
  return auth;
}

/**
 * `POST /api/v1/payouts` through the gateway with a stepped-up session (docs/payouts.md): 100.00 each to an active
 * bank account, out of one live credit of 1,000,000.00, 4 connections in a closed loop; every payout is under the
 * approval threshold, so each is one create transaction (the account's payout lock, the balance's row, the payout,
 * its posting and `payout.created`). Its p99 and CPU a payout; then the ledger verified and the payouts counted.
 */
export async function payoutsScenario(ctx: BenchContext): Promise<void> {
  const { fixtures, sys } = ctx;
  const owner = await fixtures.owner();
  const shopId = await fixtures.shop(owner.id);
  const auth = await steppedUpSession(ctx, owner);

  // The credit: a live link paid by the sandbox provider's signed callback.
  const link = await call(ctx, 'POST', '/merchant/v1/payment-links', owner.headers, { shop_id: shopId, amount: CREDIT });
  const body = JSON.stringify({ gateway_payment_id: `sbx_${link.body.id as string}`, status: 'paid' });
  const signature = createHmac('sha256', sys.env.PROVIDER_SANDBOX_SECRET!).update(body).digest('hex');
  const paid = await fetch(`${sys.gatewayUrl}/callbacks/v1/sandbox`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provider-signature': signature },
    body,
  });
  if (paid.status !== 200) throw new Error(`the credit's callback answered ${paid.status}: ${await paid.text()}`);
  const destination = await call(ctx, 'POST', '/api/v1/payout-destinations', auth, { type: 'bank_account', bank_account: BANK });
  const before = await call(ctx, 'GET', `/merchant/v1/balance?shop_id=${shopId}`, owner.headers);
  ctx.log(`payouts: ${PAYOUT} each out of available ${before.body.available as string}, ${PAYOUT_CONNECTIONS} connections, one account`);

  const payoutsCtx: BenchContext = { ...ctx, settings: { ...ctx.settings, connections: PAYOUT_CONNECTIONS } };
  const { row, result } = await measureClosed(payoutsCtx, 'payouts: create, stepped-up session', 'gateway', sys.gatewayUrl, {
    method: 'POST',
    path: '/api/v1/payouts',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ shop_id: shopId, amount: PAYOUT, destination_id: destination.body.id }),
  });
  ctx.rows.push(row);

  const db = new Db({ url: sys.database.url, schema: 'links', log: createLogger('bench', 'warn'), max: 1 });
  try {
    const verification = await verifyLedger(db);
    const [made] = await db.query<{ n: string; postings: string }>(
      `SELECT count(*)::text AS n, (SELECT count(*) FROM ledger_transactions WHERE shop_id = $1 AND type = 'payout')::text AS postings
         FROM payouts WHERE shop_id = $1`,
      [shopId],
    );
    ctx.details['payouts / ledger'] = { verification, payouts: made?.n, postings: made?.postings, responses: result.statusCodes };
    check(
      ctx,
      `payout create p99 ≤ ${P99_MS} ms at ${PAYOUT_CONNECTIONS} connections, every answer 201; each payout posted once, ledger:verify clean`,
      `${row.rps} payouts/s, p50 ${row.p50} ms, p99 ${row.p99} ms, CPU ${row.cpuMsPerRequest ?? '?'} ms a payout, ${row.errors} errors; ` +
        `${made?.n} payouts, ${made?.postings} postings; unbalanced ${verification.unbalanced}, mismatched ${verification.balances_mismatched}`,
      row.p99 !== null &&
        row.p99 <= P99_MS &&
        row.errors === 0 &&
        made?.n === made?.postings &&
        verification.unbalanced === 0 &&
        verification.balances_mismatched === 0,
    );
  } finally {
    await db.close();
  }
}
