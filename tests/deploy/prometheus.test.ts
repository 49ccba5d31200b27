// The alerts and the dashboard, checked offline with Prometheus' own tool: `promtool check rules` on the
// rendered PrometheusRule, `promtool test rules` with the unit tests in tests/deploy/prometheus/ (each alert
// fires on the series that should raise it and resolves after), and every dashboard query parsed by promtool.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  dashboardExpressions,
  dashboards,
  findPromtool,
  metricNames,
  operationsAnchors,
  prometheusRule,
  promtool,
  ruleFileText,
  rulesOf,
  withoutGrafanaVariables,
} from './support/monitoring';
import type { PrometheusRuleObject } from './support/prometheus-rule';
import { ROOT } from './support/repo';

const OVERLAYS = ['overlays/dev', 'overlays/prod'];
const UNIT_TESTS = ['alerts.test.yaml', 'slow-burn.test.yaml', 'providers.test.yaml', 'payouts.test.yaml'];
const unitTestPath = (file: string): string => join(ROOT, 'tests/deploy/prometheus', file);
const RULE_FILE = 'payment-links.rules.yaml';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pl-promtool-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The overlay's rules as the rule file the unit tests load, beside a copy of the unit tests. */
function writeRules(overlay: string, text = ruleFileText(prometheusRule(overlay))): string {
  const at = mkdtempSync(join(dir, 'rules-'));
  writeFileSync(join(at, RULE_FILE), text);
  for (const file of UNIT_TESTS) copyFileSync(unitTestPath(file), join(at, file));
  return at;
}

test('promtool is installed', () => {
  expect(findPromtool()).toMatch(/promtool$/);
});

test('the rules tested are the one source: the rendered PrometheusRule is deploy/monitoring/prometheus-rules.yaml, which compose mounts too', () => {
  const source = parse(readFileSync(join(ROOT, 'deploy/monitoring/prometheus-rules.yaml'), 'utf8')) as PrometheusRuleObject;
  expect(prometheusRule('overlays/prod').spec).toEqual(source.spec);
});

test('the overlays leave the rules as the base has them (so the unit tests cover both)', () => {
  expect(ruleFileText(prometheusRule('overlays/dev'))).toBe(ruleFileText(prometheusRule('overlays/prod')));
});

test('promtool check rules accepts the rendered PrometheusRule', () => {
  expect(promtool(['check', 'rules', RULE_FILE], writeRules('overlays/prod'))).toMatch(/SUCCESS: \d+ rules found/);
});

test('promtool test rules: every unit test of the alerts passes', () => {
  const out = promtool(['test', 'rules', ...UNIT_TESTS], writeRules('overlays/prod'));
  expect(out.match(/SUCCESS/g)).toHaveLength(UNIT_TESTS.length);
});

test('the checks can fail: a broken expression fails check rules, a changed threshold fails the unit tests', () => {
  const text = ruleFileText(prometheusRule('overlays/prod'));
  expect(text).toContain('> 60\n');
  expect(() => promtool(['check', 'rules', RULE_FILE], writeRules('overlays/prod', text.replace('> 60\n', '> > 60\n')))).toThrow(/failed/);
  expect(() => promtool(['test', 'rules', 'alerts.test.yaml'], writeRules('overlays/prod', text.replace('> 60\n', '> 6000\n')))).toThrow(
    /OutboxLagging/,
  );
});

interface UnitTests {
  rule_files: string[];
  tests: { alert_rule_test?: { eval_time: string; alertname: string; exp_alerts?: unknown[] }[] }[];
}

const seconds = (duration: string): number =>
  [...duration.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)].reduce(
    (total, [, n, unit]) => total + Number(n) * { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 }[unit as 'ms'],
    0,
  );

test('every alert has a unit test in which it fires and, later in the same test, resolves', () => {
  const units = UNIT_TESTS.map((file) => parse(readFileSync(unitTestPath(file), 'utf8')) as UnitTests);
  for (const unit of units) expect(unit.rule_files).toEqual([RULE_FILE]);
  const tests = units.flatMap((u) => u.tests);
  const alerts = rulesOf(prometheusRule('overlays/prod')).flatMap((r) => (r.alert ? [r.alert] : []));
  expect(alerts.length).toBeGreaterThanOrEqual(11);
  for (const alert of alerts) {
    const firesThenResolves = tests.some((t) => {
      const evals = (t.alert_rule_test ?? []).filter((e) => e.alertname === alert);
      const fired = evals.filter((e) => (e.exp_alerts ?? []).length > 0).map((e) => seconds(e.eval_time));
      const quiet = evals.filter((e) => (e.exp_alerts ?? []).length === 0).map((e) => seconds(e.eval_time));
      return fired.length > 0 && quiet.some((q) => q > Math.min(...fired));
    });
    expect({ alert, firesThenResolves }).toEqual({ alert, firesThenResolves: true });
  }
});

test('the alerts the issue asks for exist, each with a severity and a runbook section of its own in docs/operations.md', () => {
  const rules = rulesOf(prometheusRule('overlays/prod')).filter((r) => r.alert);
  const byName = new Map(rules.map((r) => [r.alert, r]));
  const reads = (alert: string): Set<string> => metricNames(byName.get(alert)?.expr ?? '');
  // Burn rates of the create route's two SLOs, each over a long and a short window.
  for (const alert of ['CreateLinkAvailabilityBudgetBurn', 'CreateLinkAvailabilityBudgetSlowBurn']) {
    expect([...reads(alert)].every((m) => m.startsWith('payment_links:create_errors:ratio_rate'))).toBe(true);
    expect(reads(alert).size).toBe(4);
  }
  for (const alert of ['CreateLinkLatencyBudgetBurn', 'CreateLinkLatencyBudgetSlowBurn']) {
    expect([...reads(alert)].every((m) => m.startsWith('payment_links:create_slow:ratio_rate'))).toBe(true);
    expect(reads(alert).size).toBe(4);
  }
  expect(reads('WebhookBacklogGrowing')).toEqual(new Set(['webhook_queue_depth']));
  expect(reads('WebhookOldestDueTooOld')).toEqual(new Set(['webhook_queue_oldest_due_age_seconds']));
  expect(reads('OutboxLagging')).toEqual(new Set(['outbox_oldest_age_seconds']));
  expect(reads('KafkaConsumerLagging')).toEqual(new Set(['kafka_consumer_lag']));
  expect(reads('WebhookDeliveriesExhausted')).toEqual(new Set(['webhook_deliveries_exhausted_total']));
  expect(reads('NatsRequestsFailing')).toEqual(new Set(['nats_client_request_duration_seconds_count']));
  expect(reads('ReadinessFlapping')).toEqual(new Set(['readiness_changes_total']));
  expect(reads('LatePaymentReceived')).toEqual(new Set(['late_payments_total']));
  expect(reads('ProviderCircuitOpen')).toEqual(new Set(['provider_circuit_state']));
  expect(reads('ProviderCallbacksRefused')).toEqual(new Set(['provider_callbacks_total']));
  expect(reads('ProviderCallbacksUnknown')).toEqual(new Set(['provider_callbacks_unknown_total']));
  expect(reads('PaymentAttemptUnfinishedPastExpiry')).toEqual(new Set(['payment_attempts_unfinished_past_expiry_seconds']));
  expect(reads('UnresolvedPaymentTooOld')).toEqual(new Set(['unresolved_payments_oldest_age_seconds']));
  expect(reads('PayoutStuckAtHeleket')).toEqual(new Set(['payouts_waiting_oldest_age_seconds']));
  expect(reads('BankPayoutStuck')).toEqual(new Set(['payouts_waiting_oldest_age_seconds']));
  expect(reads('MailQueueStuck')).toEqual(new Set(['mail_queue_oldest_age_seconds']));
  expect(reads('MailGivenUp')).toEqual(new Set(['mail_given_up_total']));

  const anchors = operationsAnchors();
  const seen = new Set<string>();
  for (const rule of rules) {
    expect(rule.labels?.severity).toMatch(/^(warning|critical)$/);
    const anchor = /\/docs\/operations\.md#([a-z0-9-]+)$/.exec(rule.annotations?.runbook_url ?? '')?.[1] ?? '';
    expect({ alert: rule.alert, anchor, documented: anchors.has(anchor), own: !seen.has(anchor) }).toEqual({
      alert: rule.alert,
      anchor,
      documented: true,
      own: true,
    });
    seen.add(anchor);
  }
});

test('the SLO ratios are recorded for every window the burn-rate alerts read', () => {
  const rules = rulesOf(prometheusRule('overlays/prod'));
  const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));
  const read = rules.filter((r) => r.alert).flatMap((r) => [...metricNames(r.expr)].filter((m) => m.includes(':')));
  expect(read.length).toBeGreaterThan(0);
  for (const name of read) expect({ name, recorded: recorded.has(name) }).toEqual({ name, recorded: true });
});

describe('Grafana dashboard', () => {
  test.each(OVERLAYS)('k8s/%s has one, in a ConfigMap with the sidecar label grafana_dashboard: "1"', (overlay) => {
    const found = dashboards(overlay);
    expect(found.map((d) => [d.name, d.labels.grafana_dashboard, d.dashboard.uid])).toEqual([['payment-links-dashboard', '1', 'payment-links']]);
  });

  test('it shows the RED metrics per route, the payment -> webhook pipeline and dependency health', () => {
    const [found] = dashboards('overlays/prod');
    const read = new Set(dashboardExpressions(found!.dashboard).flatMap(({ expr }) => [...metricNames(expr)]));
    for (const metric of [
      'http_server_request_duration_seconds_count',
      'http_server_request_duration_seconds_bucket',
      'outbox_oldest_age_seconds',
      'kafka_consumer_lag',
      'webhook_queue_depth',
      'webhook_queue_oldest_due_age_seconds',
      'webhook_attempts_total',
      'webhook_deliveries_exhausted_total',
      'readiness_ready',
      'nats_client_request_duration_seconds_count',
    ]) {
      expect({ metric, shown: read.has(metric) }).toEqual({ metric, shown: true });
    }
    const rows = found!.dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows).toEqual(['Gateway: rate, errors, duration per route', 'Payment -> webhook pipeline', 'Dependencies and processes']);
  });

  test('every query of it is valid PromQL (promtool parses each as a recording rule)', () => {
    const [found] = dashboards('overlays/prod');
    const expressions = dashboardExpressions(found!.dashboard);
    expect(expressions.length).toBeGreaterThan(20);
    const groups = [
      { name: 'dashboard', rules: expressions.map(({ expr }, i) => ({ record: `dashboard:query_${i}`, expr: withoutGrafanaVariables(expr) })) },
    ];
    const at = mkdtempSync(join(dir, 'dashboard-'));
    writeFileSync(join(at, 'dashboard.rules.yaml'), JSON.stringify({ groups }));
    expect(promtool(['check', 'rules', 'dashboard.rules.yaml'], at)).toMatch(/SUCCESS/);
  });
});

test('metricNames finds the metrics of an expression and nothing else', () => {
  expect(
    metricNames(
      'histogram_quantile(0.99, sum by (le, route) (rate(http_x_bucket{route="/a", le="0.5"}[5m]))) / ignoring(x) up offset 5m > 1e3 and rec:ord:r5m',
    ),
  ).toEqual(new Set(['http_x_bucket', 'up', 'rec:ord:r5m']));
});
