import { startServiceProcess, type ServiceProcess } from '../support/processes';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * SIGTERM to one of two links processes while creates and payments flow through it: the other instance
 * takes over through the NATS queue group, no request fails, and every paid link gets its webhook.
 */
const startLinksProcess = (env: Record<string, string>): Promise<ServiceProcess> => startServiceProcess('links', { ...env, LOG_LEVEL: 'info' });
type LinksProcess = ServiceProcess;

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
