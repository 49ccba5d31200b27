import { createHmac, randomBytes } from 'node:crypto';
import { formatKopecks } from '@pl/money';
import { sleep, type Clock } from './clock';
import type { Gateways, Outcome } from './gateways';
import type { SoakMerchant } from './merchants';
import type { Recorder, RequestKind } from './recorder';
import { OPERATIONS, type Operation, type SoakSettings } from './settings';

interface KnownLink {
  id: string;
  merchant: SoakMerchant;
}

/** What the soak expects each link it created to be at the end; `unknown` after an operation whose answer was lost. */
export type ExpectedState = 'pending' | 'canceled' | 'paid' | 'unknown';

/** Past this many unanswered operations the generator sheds new ones (counted) rather than pile up without bound. */
const MAX_IN_FLIGHT = 2000;
/** `get` reads one of the most recently created links. */
const RECENT_LINKS = 1000;
const METHODS = [{ method: 'crypto', network: 'USDT-TRC20' }, { method: 'sbp' }, { method: 'crypto', network: 'TON-TON' }];

/** Smooth weighted round-robin: the mix is interleaved evenly rather than drawn at random. */
class Sequencer {
  private readonly current = new Map<Operation, number>(OPERATIONS.map((op) => [op, 0]));
  private readonly total: number;
  constructor(private readonly mix: Record<Operation, number>) {
    this.total = OPERATIONS.reduce((a, op) => a + mix[op], 0);
  }
  next(): Operation {
    let best: Operation = 'create';
    let bestValue = -Infinity;
    for (const op of OPERATIONS) {
      const v = (this.current.get(op) ?? 0) + this.mix[op];
      this.current.set(op, v);
      if (v > bestValue) {
        best = op;
        bestValue = v;
      }
    }
    this.current.set(best, bestValue - this.total);
    return best;
  }
}

/**
 * The open-loop generator: operations start on a fixed schedule whatever the answers, each through the
 * next gateway in rotation, and every request's outcome is recorded with its latency from when it was due.
 */
export class Load {
  /** Final state expected of every link whose create was answered 201. */
  readonly expected = new Map<string, ExpectedState>();
  /** When the provider callback of each paid link was answered 200. */
  readonly paidAt = new Map<string, number>();
  /** Cancels and pays turned into creates because no pending link was left. */
  substituted = 0;
  private readonly pending: KnownLink[] = [];
  private readonly recent: KnownLink[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly runId = randomBytes(4).toString('hex');
  private created = 0;
  private creates = 0;
  private lists = 0;
  private pays = 0;
  private stopped = false;

  constructor(
    private readonly o: {
      gateways: Gateways;
      merchants: SoakMerchant[];
      recorder: Recorder;
      clock: Clock;
      settings: SoakSettings;
      providerSecret: string;
    },
  ) {}

  /** Runs the schedule until `untilMs` (clock time), then waits for what is still in flight. */
  async run(untilMs: number): Promise<void> {
    const { clock, settings, recorder } = this.o;
    const sequencer = new Sequencer(settings.mix);
    const interval = 1000 / settings.rate;
    for (let i = 0; !this.stopped; i++) {
      const due = i * interval;
      if (due >= untilMs) break;
      const wait = due - clock.now();
      if (wait > 0) await sleep(wait);
      if (this.inFlight.size >= MAX_IN_FLIGHT) {
        recorder.shed++;
        continue;
      }
      const op = sequencer.next();
      const p: Promise<void> = this.perform(op, due).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
    await Promise.all([...this.inFlight]);
  }

  stop(): void {
    this.stopped = true;
  }

  /** Creates a few links per merchant before the clock starts, so cancel, pay and get have links from the first second. */
  async prime(perMerchant: number): Promise<void> {
    await Promise.all(
      this.o.merchants.map(async (m) => {
        for (let i = 0; i < perMerchant; i++) await this.create(m, this.o.clock.now(), false);
      }),
    );
  }

  private async perform(op: Operation, due: number): Promise<void> {
    const merchants = this.o.merchants;
    switch (op) {
      case 'create':
        return this.create(merchants[this.creates++ % merchants.length]!, due);
      case 'list': {
        const n = this.lists++;
        const m = merchants[n % merchants.length]!;
        // Every other list through a dashboard session (Redis), the rest with the API keys.
        if (n % 2 === 1 && m.session) {
          await this.call('list (session)', due, 'GET', '/api/v1/payment-links?limit=20', { authorization: `Bearer ${m.session}` });
        } else {
          await this.call('list', due, 'GET', '/merchant/v1/payment-links?limit=20', m.keys);
        }
        return;
      }
      case 'get': {
        const link = this.recent[Math.floor(Math.random() * this.recent.length)];
        if (!link) return this.substitute(due);
        await this.call('get', due, 'GET', `/merchant/v1/payment-links/${link.id}`, link.merchant.keys);
        return;
      }
      case 'cancel': {
        const link = this.pending.shift();
        if (!link) return this.substitute(due);
        const res = await this.call('cancel', due, 'POST', `/merchant/v1/payment-links/${link.id}/cancel`, link.merchant.keys, '{}');
        this.expected.set(link.id, res.status === 200 ? 'canceled' : 'unknown');
        return;
      }
      case 'pay':
        return this.pay(due);
    }
  }

  private substitute(due: number): Promise<void> {
    this.substituted++;
    return this.create(this.o.merchants[this.creates++ % this.o.merchants.length]!, due);
  }

  private async create(m: SoakMerchant, due: number, record = true): Promise<void> {
    const n = ++this.created;
    const kopecks = 100 + Math.floor(Math.random() * 500_000);
    const body = JSON.stringify({
      shop_id: m.shopId,
      amount: formatKopecks(kopecks),
      order_id: `soak-${this.runId}-${n}`,
      description: 'Soak test order',
      expires_in_minutes: 120,
    });
    const headers = { ...m.keys, 'idempotency-key': `soak-${this.runId}-${n}` };
    const res = record
      ? await this.call('create', due, 'POST', '/merchant/v1/payment-links', headers, body)
      : await this.o.gateways.send('POST', '/merchant/v1/payment-links', headers, body);
    if (res.status !== 201 || !res.body) return;
    const id = (JSON.parse(res.body) as { id: string }).id;
    const link = { id, merchant: m };
    this.expected.set(id, 'pending');
    this.pending.push(link);
    this.recent.push(link);
    if (this.recent.length > RECENT_LINKS) this.recent.shift();
  }

  /** The buyer picks a method (every other payment), then the sandbox provider confirms, signed as a real provider would. */
  private async pay(due: number): Promise<void> {
    const link = this.pending.shift();
    if (!link) return this.substitute(due);
    const n = this.pays++;
    let startedAt = due;
    if (n % 2 === 0) {
      await this.call('select', due, 'POST', `/p/${link.id}/select`, {}, JSON.stringify(METHODS[(n / 2) % METHODS.length]));
      startedAt = this.o.clock.now();
    }
    const body = JSON.stringify({ gateway_payment_id: `sbx_${link.id}`, status: 'paid' });
    const signature = createHmac('sha256', this.o.providerSecret).update(body).digest('hex');
    const res = await this.call('callback', startedAt, 'POST', '/callbacks/v1/sandbox', { 'x-provider-signature': signature }, body);
    if (res.status === 200) {
      this.expected.set(link.id, 'paid');
      this.paidAt.set(link.id, this.o.clock.now());
    } else {
      this.expected.set(link.id, 'unknown');
    }
  }

  private async call(
    kind: RequestKind,
    at: number,
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Outcome> {
    const res = await this.o.gateways.send(method, path, headers, body);
    this.o.recorder.record(
      {
        kind,
        at,
        ms: this.o.clock.now() - at,
        gateway: res.gateway,
        ...(res.status !== undefined ? { status: res.status } : {}),
        ...(res.error !== undefined ? { error: res.error } : {}),
      },
      res.body,
    );
    return res;
  }
}
