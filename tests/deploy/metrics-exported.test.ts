// Every metric the alerts and the dashboard read is one the services export: the whole system runs here (as
// tests/integration does), each service's ops port is scraped, and each name a rule or a panel reads must be
// declared there (a `# TYPE` line; a histogram's _bucket/_count/_sum series go with it) — by the service the
// expression names in its `app` matcher, when it names one. Recording rules' names (with a colon) must be
// recorded by the rules themselves. Also drives one delivery to exhaustion, the one alert metric no other
// test moves.
import { randomUUID } from 'node:crypto';
import { eventually } from '@pl/testing';
import { loadConfig as shopsConfig, startShops } from '@pl/shops/testing';
import type { RunningService } from '@pl/config';
import { createLogger } from '@pl/telemetry';
import { metricSum } from '../support/metrics';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestSystem } from '../support/system';
import { dashboardExpressions, dashboards, metricNames, prometheusRule, rulesOf } from './support/monitoring';
import { SERVICES, type ServiceName } from './support/repo';

let sys: TestSystem;
let extraShops: RunningService;
let receiver: WebhookReceiver;
const opsPort: Partial<Record<ServiceName, number>> = {};

beforeAll(async () => {
  sys = await startSystem();
  // The system does not hand out the shops service's ops port: a second shops process of the same system does.
  extraShops = await startShops(shopsConfig(sys.env), createLogger('test', 'silent'));
  Object.assign(opsPort, { gateway: sys.gatewayOpsPort, links: sys.linksOpsPort, shops: extraShops.opsPort, notifier: sys.notifierOpsPort });
  // A merchant endpoint that never accepts: every attempt fails, so the last one exhausts the delivery.
  receiver = await WebhookReceiver.start({ status: () => 500 });
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await extraShops?.stop();
  await sys?.stop();
});

const scrape = async (service: ServiceName): Promise<string> => {
  const res = await fetch(`http://127.0.0.1:${opsPort[service]}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};

/** The series names a service's exposition declares (`# TYPE`), with a histogram's and a summary's own series. */
function declared(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (!name) continue;
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_count', '_sum']) names.add(`${name}${suffix}`);
  }
  return names;
}

/** Each expression of the rules and the dashboard, with the service its `app="…"` matcher names, if any. */
function expressions(): { where: string; expr: string }[] {
  const rules = rulesOf(prometheusRule('overlays/prod')).map((r) => ({ where: r.alert ?? r.record ?? '', expr: r.expr }));
  const panels = dashboards('overlays/prod').flatMap((d) =>
    dashboardExpressions(d.dashboard).map((e) => ({ where: `dashboard: ${e.where}`, expr: e.expr })),
  );
  return [...rules, ...panels];
}

/** What an expression reads that nobody exports (or records), one line each. */
function unexported(all: { where: string; expr: string }[], exported: Record<ServiceName, Set<string>>, recorded: Set<string>): string[] {
  const missing: string[] = [];
  for (const { where, expr } of all) {
    for (const name of metricNames(expr)) {
      if (name.includes(':')) {
        if (!recorded.has(name)) missing.push(`${where}: ${name} is recorded by no rule`);
        continue;
      }
      if (!SERVICES.some((s) => exported[s].has(name))) missing.push(`${where}: ${name} is exported by no service`);
      // `name{... app="links" ...}`: that service must be the one exporting it.
      for (const [, metric, app] of expr.matchAll(/([a-z_:]+)\{[^}]*\bapp="([a-z]+)"/g)) {
        if (metric === name && !exported[app as ServiceName]?.has(name)) missing.push(`${where}: ${name} is not exported by ${app}`);
      }
    }
  }
  return missing;
}

const scrapeAll = async (): Promise<Record<ServiceName, Set<string>>> =>
  Object.fromEntries(await Promise.all(SERVICES.map(async (s) => [s, declared(await scrape(s))] as const))) as Record<ServiceName, Set<string>>;
const recordedByRules = (): Set<string> => new Set(rulesOf(prometheusRule('overlays/prod')).flatMap((r) => (r.record ? [r.record] : [])));

test('every metric the rules and the dashboard read is exported by a running service (by the one its app matcher names)', async () => {
  const all = expressions();
  expect(all.length).toBeGreaterThan(40);
  expect(unexported(all, await scrapeAll(), recordedByRules())).toEqual([]);
});

test('the check can fail: a name no service exports, one exported by another service, an unrecorded rule name', async () => {
  const exported = await scrapeAll();
  expect(exported.notifier.has('webhook_queue_oldest_due_age_seconds')).toBe(true);
  expect(
    unexported(
      [
        { where: 'a', expr: 'max(webhook_queue_oldest_age_seconds_typo{app="notifier"}) > 1' },
        { where: 'b', expr: 'sum(rate(late_payments_total{app="notifier"}[5m]))' },
        { where: 'c', expr: 'payment_links:nothing:ratio_rate5m > 0' },
      ],
      exported,
      recordedByRules(),
    ),
  ).toEqual([
    'a: webhook_queue_oldest_age_seconds_typo is exported by no service',
    'a: webhook_queue_oldest_age_seconds_typo is not exported by notifier',
    'b: late_payments_total is not exported by notifier',
    'c: payment_links:nothing:ratio_rate5m is recorded by no rule',
  ]);
});

test('a delivery whose every attempt fails is counted once in webhook_deliveries_exhausted_total, and readiness is reported', async () => {
  const { merchant, shop } = await sys.merchantWithShop({ webhookUrl: receiver.url });
  const before = metricSum(await scrape('notifier'), 'webhook_deliveries_exhausted_total') ?? Number.NaN;
  expect(before).toBe(0);
  const created = await sys.http.post(
    '/merchant/v1/payment-links',
    { shop_id: shop.id, amount: '100.00', order_id: `order-${randomUUID()}` },
    { headers: merchant.keys },
  );
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
  // WEBHOOK_RETRY_DELAYS_MS has 7 delays in the test system: the 8th attempt is the last.
  await receiver.nthFor(id, 8);
  await eventually(
    async () => metricSum(await scrape('notifier'), 'webhook_deliveries_exhausted_total') === 1,
    'the exhausted delivery counted',
    10_000,
  );
  const [row] = await sys.sql<{ status: string }>(`SELECT status FROM notifier.deliveries WHERE payment_link_id = $1`, [id]);
  expect(row?.status).toBe('failed');
  expect(receiver.hitsFor(id)).toHaveLength(8);

  expect((await fetch(`http://127.0.0.1:${opsPort.links}/readyz`)).status).toBe(200);
  expect(metricSum(await scrape('links'), 'readiness_ready', { app: 'links' })).toBe(1);
});
