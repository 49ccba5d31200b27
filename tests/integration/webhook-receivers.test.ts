import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { eventually } from '@pl/testing';
import type { ApiResponse } from '../support/http';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestSystem } from '../support/system';

/**
 * The sample receivers of examples/webhook-receivers (docs/webhooks.md), each run as its own process: a real paid
 * link's webhook reaches it through the whole platform and is accepted, and requests crafted here (a tampered body,
 * a wrong secret, a timestamp 10 minutes old or ahead) are refused with a 4xx.
 */
const EXAMPLES = join(__dirname, '..', '..', 'examples', 'webhook-receivers');

interface Sample {
  name: string;
  command: string;
  args: string[];
}
const SAMPLES: Sample[] = [
  { name: 'node/standard-webhooks.mjs', command: process.execPath, args: [join(EXAMPLES, 'node', 'standard-webhooks.mjs')] },
  { name: 'node/hex-signature.mjs', command: process.execPath, args: [join(EXAMPLES, 'node', 'hex-signature.mjs')] },
  { name: 'python/receiver.py', command: 'python3', args: [join(EXAMPLES, 'python', 'receiver.py')] },
];

/** A receiver process, its address and every line it printed. */
interface Running {
  child: ChildProcess;
  url: string;
  lines: string[];
  /** Resolves with the first printed line (already printed or still to come) that matches. */
  line(match: RegExp, withinMs?: number): Promise<string>;
}

async function startSample(sample: Sample, secret: string): Promise<Running> {
  const child = spawn(sample.command, sample.args, {
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let waiters: { match: RegExp; resolve: (l: string) => void }[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (l) => {
      lines.push(l);
      waiters = waiters.filter((w) => (w.match.test(l) ? (w.resolve(l), false) : true));
    });
  }
  const line = (match: RegExp, withinMs = 15_000): Promise<string> => {
    const seen = lines.find((l) => match.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${sample.name} printed no line matching ${match} in ${withinMs} ms:\n${lines.join('\n')}`)),
        withinMs,
      );
      waiters.push({
        match,
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
    });
  };
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (err) => reject(new Error(`${sample.name} could not start: ${err.message}`)));
    child.once('exit', (code) => reject(new Error(`${sample.name} exited with ${code}:\n${lines.join('\n')}`)));
  });
  exited.catch(() => undefined);
  const listening = await Promise.race([line(/^listening on http:\/\/127\.0\.0\.1:\d+$/), exited]);
  return { child, lines, line, url: `${listening.replace('listening on ', '')}/webhooks` };
}

const stopSample = async (r: Running | undefined): Promise<void> => {
  if (r === undefined) return;
  if (r.child.exitCode !== null || r.child.signalCode !== null) return;
  const gone = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGTERM');
  await gone;
};

/** A delivery as the platform signs it (docs/product-decisions.md "Webhooks"), built here independently of the notifier. */
function signed(
  body: string,
  secret: string,
  o: { id?: string; timestamp?: number; sendBody?: string } = {},
): { headers: Record<string, string>; body: string } {
  const id = o.id ?? `wh_${randomUUID()}`;
  const ts = String(o.timestamp ?? Math.floor(Date.now() / 1000));
  const key = Buffer.from(secret, 'utf8');
  const hex = createHmac('sha256', key).update(body).digest('hex');
  const standard = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
  return {
    body: o.sendBody ?? body,
    headers: {
      'Content-Type': 'application/json',
      'X-Webhook-Event': 'payment.succeeded',
      'Service-Event': 'payment.succeeded',
      'X-Webhook-Signature': hex,
      'Service-Signature': hex,
      'X-Webhook-Id': id,
      'X-Webhook-Timestamp': ts,
      'X-Webhook-Attempt': '1',
      'webhook-id': id,
      'webhook-timestamp': ts,
      'webhook-signature': `v1,${standard}`,
    },
  };
}

const post = async (url: string, req: { headers: Record<string, string>; body: string }): Promise<number> =>
  (await fetch(url, { method: 'POST', headers: req.headers, body: req.body })).status;

let sys: TestSystem;
let merchant: TestMerchant;

beforeAll(async () => {
  const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (python.error || python.status !== 0) {
    throw new Error(
      `python3 is required for examples/webhook-receivers/python/receiver.py and was not found (${python.error?.message ?? python.stderr})`,
    );
  }
  sys = await startSystem();
  merchant = await sys.merchant();
}, 60_000);
afterAll(async () => {
  await sys?.stop();
});

describe.each(SAMPLES)('examples/webhook-receivers/$name', (sample) => {
  const secret = randomBytes(32).toString('base64url');
  let receiver: Running | undefined;
  beforeAll(async () => {
    receiver = await startSample(sample, secret);
  });
  afterAll(() => stopSample(receiver));

  it('verifies a real paid link’s payment.succeeded webhook, and the delivery log shows it succeeded', async () => {
    const r = receiver!;
    const shop = await sys.shop(merchant.id, { webhookUrl: r.url, webhookSecret: secret });
    const created = await sys.http.post(
      '/merchant/v1/payment-links',
      { shop_id: shop.id, amount: '1500.00', order_id: `order-${randomUUID()}` },
      { headers: merchant.keys },
    );
    expect(created.status).toBe(201);
    const linkId = created.body.id as string;
    expect((await sys.providerCallback(sandboxPaymentId(linkId), 'paid')).status).toBe(200);

    const verified = await r.line(new RegExp(`^verified payment\\.succeeded \\S+ .*"payment_link_id":"${linkId}"`));
    let last: ApiResponse | undefined;
    await eventually(
      async () => {
        last = await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${linkId}`, { headers: merchant.keys });
        return last.body?.deliveries?.[0]?.status === 'succeeded';
      },
      () => `the delivery of ${linkId} succeeds (last read: ${last?.text ?? 'none'})`,
      10_000,
      20,
    );
    const delivery = last!.body.deliveries[0];
    expect(delivery.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([[1, 200]]);
    expect(verified.split(' ')[2]).toBe(delivery.webhook_id);
    expect(r.lines.filter((l) => l.startsWith('rejected'))).toEqual([]);
  });

  it('accepts a correctly signed request and answers a repeat of its webhook id without handling it twice', async () => {
    const r = receiver!;
    const body = JSON.stringify({ event: 'payment.succeeded', data: { payment_link_id: randomUUID(), status: 'paid' } });
    const req = signed(body, secret);
    expect(await post(r.url, req)).toBe(200);
    expect(await post(r.url, signed(body, secret, { id: req.headers['webhook-id'] }))).toBe(200);
    await r.line(new RegExp(`^duplicate ${req.headers['webhook-id']}`));
    expect(r.lines.filter((l) => l.startsWith(`verified payment.succeeded ${req.headers['webhook-id']} `))).toHaveLength(1);
  });

  it('refuses a tampered body, a wrong secret, and a timestamp more than 5 minutes old or ahead, with a 4xx', async () => {
    const r = receiver!;
    const body = JSON.stringify({ event: 'payment.succeeded', data: { payment_link_id: randomUUID(), amount: '1500.00', status: 'paid' } });
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, { headers: Record<string, string>; body: string }][] = [
      ['tampered body', signed(body, secret, { sendBody: body.replace('1500.00', '9500.00') })],
      ['wrong secret', signed(body, randomBytes(32).toString('base64url'))],
      ['timestamp 10 minutes old (re-signed)', signed(body, secret, { timestamp: now - 600 })],
      ['timestamp 10 minutes ahead (re-signed)', signed(body, secret, { timestamp: now + 600 })],
    ];
    const answers: { what: string; status: number }[] = [];
    for (const [what, req] of cases) answers.push({ what, status: await post(r.url, req) });
    expect(answers.map(({ what, status }) => ({ what, refused: status >= 400 && status < 500 }))).toEqual(
      cases.map(([what]) => ({ what, refused: true })),
    );
    expect(r.lines.filter((l) => l.startsWith('verified') && l.includes('9500.00'))).toEqual([]);
  });

  it('refuses a body over 1 MiB with 413 and a GET with 405', async () => {
    const r = receiver!;
    const big = JSON.stringify({ event: 'payment.succeeded', data: { pad: 'x'.repeat(1024 * 1024) } });
    expect(await post(r.url, signed(big, secret))).toBe(413);
    expect((await fetch(r.url)).status).toBe(405);
  });
});
