import { Registry, type Logger } from '@pl/telemetry';
import { providerMetrics } from './provider-metrics';

/** A logger that keeps what an outage logs (level, fields, message): the observer only warns and informs. */
function capturingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, fields, message });
  return { log: { warn: at('warn'), info: at('info'), debug: at('debug'), error: at('error') } as unknown as Logger, lines };
}

/** One sample of the registry's exposition, by series name and labels. */
const sample = async (registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> => {
  for (const line of (await registry.metrics()).split('\n')) {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m?.[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
};

describe('providerMetrics', () => {
  it('starts every guarded circuit closed and follows its state', async () => {
    const registry = new Registry();
    const observer = providerMetrics(registry, capturingLogger().log);
    expect(await sample(registry, 'provider_circuit_state', { provider: 'raiffeisen_sbp' })).toBe(0);
    expect(await sample(registry, 'provider_circuit_state', { provider: 'heleket' })).toBe(0);
    observer.circuit!({ provider: 'heleket', state: 'open' });
    expect(await sample(registry, 'provider_circuit_state', { provider: 'heleket' })).toBe(2);
    observer.circuit!({ provider: 'heleket', state: 'half_open' });
    expect(await sample(registry, 'provider_circuit_state', { provider: 'heleket' })).toBe(1);
    expect(await sample(registry, 'provider_circuit_state', { provider: 'raiffeisen_sbp' })).toBe(0);
  });

  it('counts each call by provider, operation and outcome, with its latency in seconds', async () => {
    const registry = new Registry();
    const observer = providerMetrics(registry, capturingLogger().log);
    observer.call!({ provider: 'raiffeisen_sbp', operation: 'create_payment', outcome: 'ok', why: null, durationMs: 40 });
    observer.call!({ provider: 'raiffeisen_sbp', operation: 'create_payment', outcome: 'unavailable', why: 'timeout', durationMs: 8000 });
    observer.call!({ provider: 'raiffeisen_sbp', operation: 'create_payment', outcome: 'unavailable', why: 'http_5xx', durationMs: 12 });
    const labels = { provider: 'raiffeisen_sbp', operation: 'create_payment' };
    expect(await sample(registry, 'provider_call_duration_seconds_count', { ...labels, outcome: 'ok' })).toBe(1);
    expect(await sample(registry, 'provider_call_duration_seconds_count', { ...labels, outcome: 'unavailable' })).toBe(2);
    expect(await sample(registry, 'provider_call_duration_seconds_sum', { ...labels, outcome: 'unavailable' })).toBeCloseTo(8.012, 6);
  });

  it('logs an outage once: a warning when the circuit opens, a line when it closes, nothing for failed probes between', () => {
    const { log, lines } = capturingLogger();
    const observer = providerMetrics(new Registry(), log);
    const cycle = ['open', 'half_open', 'open', 'half_open', 'open', 'half_open', 'closed', 'open', 'half_open', 'closed'] as const;
    for (const state of cycle) observer.circuit!({ provider: 'raiffeisen_sbp', state });
    expect(lines.map((l) => [l.level, l.fields])).toEqual([
      ['warn', { provider: 'raiffeisen_sbp', circuit: 'open' }],
      ['info', { provider: 'raiffeisen_sbp', circuit: 'closed' }],
      ['warn', { provider: 'raiffeisen_sbp', circuit: 'open' }],
      ['info', { provider: 'raiffeisen_sbp', circuit: 'closed' }],
    ]);
  });
});
