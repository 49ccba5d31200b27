export interface Settings {
  /** Measured seconds of each closed-loop scenario (BENCH_SECONDS). */
  seconds: number;
  /** Slices per side in a comparison of the gateway with the references (BENCH_ROUNDS). */
  rounds: number;
  warmupSeconds: number;
  connections: number;
  paymentRate: number;
  /** Measured seconds of each step of the payment-capacity climb (BENCH_CAPACITY_SECONDS). */
  capacitySeconds: number;
  /** Selects per second of the providers scenario's open-loop run (BENCH_SELECT_RATE). */
  selectRate: number;
  notifierSeconds: number;
  notifierRate: number;
  notifierEndpoints: number;
  slowReceiverMs: number;
  scaleLinks: number;
  smallLinks: number;
  dueLinks: number;
}

const SCENARIOS = [
  'create',
  'get',
  'list',
  'cancel',
  'payment',
  'payment-capacity',
  'providers',
  'sign-in',
  'payouts',
  'scale',
  'expiry',
  'notifier',
  'payout-batch',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** A whole-number setting from the environment, `fallback` when unset; anything else is refused, not guessed at. */
export const int = (name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer ${range}, not ${raw}`);
  return n;
};

export const USAGE = `npm run bench [-- scenario ...]

Scenarios (all when none is named): ${SCENARIOS.join(', ')}
  create    route 1 through the gateway and the reference
  get       route 6, random links of a 1,000-link history
  list      route 7, first page and a deep cursor page of that history
  cancel    route 4, a different pending link each request
  payment   provider callbacks at BENCH_PAYMENT_RATE/s → webhook received
  payment-capacity  the payment path from BENCH_PAYMENT_RATE/s up by 100/s (BENCH_CAPACITY_SECONDS, 8, a step) to
            the highest rate whose callback → webhook p99 stays within 100 ms, printed
  providers live SBP through the real Raiffeisen adapter and its fake: select p99 with the fake at 50 ms, and the
            bank's signed notifications at BENCH_PAYMENT_RATE/s → webhook (beside payment's sandbox figure)
  sign-in   POST /api/v1/auth/login, a password-only user, 2 connections
  payouts   POST /api/v1/payouts with a stepped-up session, 4 connections on one account's available balance
  scale     the history grown to BENCH_SCALE_LINKS links: list and get again (runs list first if not named)
  expiry    BENCH_DUE_LINKS links fall due during a create load; the sweeper's time and the creates' p99
  notifier  events at BENCH_NOTIFIER_RATE/s to BENCH_NOTIFIER_ENDPOINTS receivers answering after 1 s
  payout-batch  BENCH_PAYOUT_BATCH (10000) approved bank payouts: payout:batch:create and :export as processes, time and memory

Environment (defaults): BENCH_SECONDS (12) measured seconds per side of a scenario, split into BENCH_ROUNDS (3)
slices taking turns among the gateway and the two references (1 process, every core), BENCH_WARMUP_SECONDS (3),
BENCH_CONNECTIONS (50), BENCH_PAYMENT_RATE (200), BENCH_SELECT_RATE (50: the providers scenario's open-loop selects),
BENCH_NOTIFIER_SECONDS (300: the memory target is judged from 300 up),
BENCH_NOTIFIER_RATE (600), BENCH_NOTIFIER_ENDPOINTS (100), BENCH_SCALE_LINKS (1000000), BENCH_DUE_LINKS (100000),
BENCH_LOG_LEVEL (the services' default, info), BENCH_KAFKA_BROKERS (else a Kafka mock of the bench's own),
BENCH_GATEWAY_REPLICAS (1: gateway processes sharing its port, as replicas on one host),
BENCH_CPU_PROFILE=1 (each service writes a V8 CPU profile to .local/bench/profiles/<service>/ when it stops),
BENCH_STAGES=1 (the payment scenario times each hop of every payment from the spans; costs the bench CPU).
BENCH_SERVICE_ENV (a JSON object of settings every service gets on top of the bench's, to compare a setting's cost).
Needs \`npm run build\` first. Results: one table on stdout, .local/bench/last.json and last.md.`;

export function parseArgs(argv: string[]): { scenarios: ScenarioName[]; settings: Settings } | 'help' {
  if (argv.some((a) => a === '-h' || a === '--help' || a === 'help')) return 'help';
  const unknown = argv.filter((a) => !(SCENARIOS as readonly string[]).includes(a));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; one of ${SCENARIOS.join(', ')}`);
  const named = new Set(argv as ScenarioName[]);
  const scenarios = named.size === 0 ? [...SCENARIOS] : SCENARIOS.filter((s) => named.has(s));
  return {
    scenarios,
    settings: {
      seconds: int('BENCH_SECONDS', 12),
      rounds: int('BENCH_ROUNDS', 3),
      warmupSeconds: int('BENCH_WARMUP_SECONDS', 3, 0),
      connections: int('BENCH_CONNECTIONS', 50),
      paymentRate: int('BENCH_PAYMENT_RATE', 200),
      capacitySeconds: int('BENCH_CAPACITY_SECONDS', 8, 2),
      selectRate: int('BENCH_SELECT_RATE', 50),
      notifierSeconds: int('BENCH_NOTIFIER_SECONDS', 300, 10),
      notifierRate: int('BENCH_NOTIFIER_RATE', 600),
      notifierEndpoints: int('BENCH_NOTIFIER_ENDPOINTS', 100),
      slowReceiverMs: 1000,
      scaleLinks: int('BENCH_SCALE_LINKS', 1_000_000, 2000),
      smallLinks: 1000,
      dueLinks: int('BENCH_DUE_LINKS', 100_000),
    },
  };
}
