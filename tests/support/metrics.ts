/** The sum of every sample of `name` in a Prometheus text exposition whose labels include `labels`; undefined when none matches. */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m?.[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total = (total ?? 0) + Number(m[3] ?? Number.NaN);
  }
  return total;
}

/** {@link metricSum} of a service's `/metrics` on its ops port (0 when no sample matches). */
export async function scrapedSum(opsPort: number, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  return metricSum(text, name, labels) ?? 0;
}
