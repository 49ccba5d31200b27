import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * SIGTERM to one of two links processes while creates and payments flow through it: the other instance
 * takes over through the NATS queue group, no request fails, and every paid link gets its webhook.
 * The links processes run from dist/, which `npm test` builds first.
 */
const LINKS_MAIN = join(__dirname, '..', '..', 'services', 'links', 'dist', 'main.js');

interface LinksProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
}

async function startLinksProcess(env: Record<string, string>): Promise<LinksProcess> {
  if (!existsSync(LINKS_MAIN)) throw new Error(`${LINKS_MAIN} is missing: run \`npm run build\` first (npm test does)`);
  const child = spawn(process.execPath, [LINKS_MAIN], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info', OPS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.includes('links service started')) resolve();
    });
    void exited.then((code) => reject(new Error(`links exited with ${code} before it started`)));
  });
  return { child, exited };
}

let sys: TestSystem;
let receiver: WebhookReceiver;
let merchant: TestMerchant;
let shop: TestShop;
const processes: LinksProcess[] = [];

beforeAll(async () => {
  sys = await startSystem({ withoutLinks: true });
  processes.push(await startLinksProcess(sys.env), await startLinksProcess(sys.env));
  receiver = await WebhookReceiver.start();
  ({ merchant, shop } = await sys.merchantWithShop({ webhookUrl: receiver.url, webhookSecret: 'shutdown-test-secret' }));
}, 60_000);

afterAll(async () => {
  for (const p of processes) {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }
  await receiver?.close();
  await sys?.stop();
});

it('finishes in-flight work on SIGTERM, exits 0, and the other instance serves on: no failed request, no lost event', async () => {
  const statuses: number[] = [];
  const paid: string[] = [];
  let stop = false;
  let completedAfterStart = 0;
  const waiters = new Set<() => void>();

  // One create-then-pay loop; several of them make a steady load on both instances.
  const worker = async (): Promise<void> => {
    while (!stop) {
      const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 10 }, { headers: merchant.keys });
      statuses.push(created.status);
      if (created.status !== 201) continue;
      const callback = await sys.providerCallback(sandboxPaymentId(created.body.id), 'paid');
      statuses.push(callback.status);
      if (callback.status === 200) paid.push(created.body.id);
      completedAfterStart++;
      for (const w of [...waiters]) w();
    }
  };
  const load = Array.from({ length: 6 }, worker);

  const untilCompleted = (n: number): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (completedAfterStart < n) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });

  await untilCompleted(30);
  const [victim] = processes;
  victim!.child.kill('SIGTERM');
  const exitCode = await victim!.exited;
  const doneAtExit = completedAfterStart;
  await untilCompleted(doneAtExit + 30); // the survivor alone keeps serving
  stop = true;
  await Promise.all(load);

  expect(exitCode).toBe(0);
  expect(statuses.filter((s) => s !== 201 && s !== 200)).toEqual([]);
  expect(paid.length).toBeGreaterThanOrEqual(60);
  await Promise.all(paid.map((id) => receiver.nthFor(id, 1)));
  for (const id of paid) expect(receiver.hitsFor(id)).toHaveLength(1);
}, 120_000);
