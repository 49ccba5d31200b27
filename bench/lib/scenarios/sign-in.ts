import { DEFAULT_SCRYPT } from '@pl/gateway';
import { check, measureClosed, type BenchContext } from '../context';

/**
 * Sign-ins in flight: one per core. A password hash at OWASP's minimum (ADR 0039) costs a core for a sixth of a second or
 * more, so beyond two at once on this machine the figure is the length of a queue, not what a sign-in costs; the
 * closed loop's sign-ins a second are the machine's capacity either way.
 */
const SIGN_IN_CONNECTIONS = 2;
/**
 * The gateway's default password hash (services/gateway/src/domain/password-hash.ts), named in the report beside its
 * cost: the bench's users are made and sign in with it (no PASSWORD_SCRYPT is set).
 */
const PASSWORD_HASH = `scrypt N=${DEFAULT_SCRYPT.N}, r=${DEFAULT_SCRYPT.r}, p=${DEFAULT_SCRYPT.p} (${(128 * DEFAULT_SCRYPT.N * DEFAULT_SCRYPT.r) / 2 ** 20} MiB)`;
/** What a sign-in may cost at p99 on this machine with the gate open: a person waits for it, once a session. */
const P99_MS = 500;

/**
 * `POST /api/v1/auth/login` with a password alone (a user with no second factor: the password's check is the whole
 * cost), 2 connections in a closed loop, the per-address sign-in limit lifted (BENCH_OVERRIDES) so every request is a
 * real sign-in: its p99, and its CPU per sign-in across the processes, which is the password hash's price
 * (docs/benchmarks.md, "Sign-in").
 */
export async function signInScenario(ctx: BenchContext): Promise<void> {
  const user = await ctx.fixtures.user();
  ctx.log(`sign-in: a password-only user, ${PASSWORD_HASH}, ${SIGN_IN_CONNECTIONS} connections`);
  const signInCtx: BenchContext = { ...ctx, settings: { ...ctx.settings, connections: SIGN_IN_CONNECTIONS } };
  const { row } = await measureClosed(signInCtx, `sign-in: password only, ${PASSWORD_HASH}`, 'gateway', ctx.sys.gatewayUrl, {
    method: 'POST',
    path: '/api/v1/auth/login',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
  });
  ctx.rows.push(row);
  check(
    ctx,
    `sign-in p99 ≤ ${P99_MS} ms at ${SIGN_IN_CONNECTIONS} connections, every answer 200 (${PASSWORD_HASH})`,
    `${row.rps} sign-ins/s, p50 ${row.p50} ms, p99 ${row.p99} ms, CPU ${row.cpuMsPerRequest ?? '?'} ms a sign-in, ${row.errors} errors`,
    row.p99 !== null && row.p99 <= P99_MS && row.errors === 0,
  );
}
