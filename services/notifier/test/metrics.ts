/** The values of every sample of `name` in a Prometheus text exposition whose labels include `labels`. */
export function samples(text: string, name: string, labels: Record<string, string> = {}): number[] {
  const found: number[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m?.[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) found.push(Number(m[3]));
  }
  return found;
}

/** A service's `/metrics` on its ops port, read once. */
export async function scrapeMetrics(opsPort: number): Promise<{
  sum(name: string, labels?: Record<string, string>): number;
  series(name: string, labels?: Record<string, string>): number[];
}> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  return {
    sum: (name, labels) => samples(text, name, labels).reduce((a, b) => a + b, 0),
    series: (name, labels) => samples(text, name, labels),
  };
}
