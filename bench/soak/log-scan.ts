import { readFileSync } from 'node:fs';

export interface LogScan {
  file: string;
  warn: number;
  error: number;
  /** Distinct messages at warn or above, with counts, most frequent first. */
  messages: { level: number; msg: string; count: number }[];
}

/** Counts a pino log's lines at warn (40) and above; non-JSON lines (a crash's stack) count as errors. */
export function scanLog(file: string): LogScan {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { file, warn: 0, error: 0, messages: [] };
  }
  const counts = new Map<string, { level: number; msg: string; count: number }>();
  let warn = 0;
  let error = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let level = 50;
    let msg = line.slice(0, 160);
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
      level = entry.level ?? 30;
      msg = `${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}`.slice(0, 160);
    } catch {
      // not JSON: keep the raw line
    }
    if (level < 40) continue;
    if (level >= 50) error++;
    else warn++;
    const key = `${level} ${msg}`;
    const c = counts.get(key) ?? { level, msg, count: 0 };
    c.count++;
    counts.set(key, c);
  }
  return { file, warn, error, messages: [...counts.values()].sort((a, b) => b.count - a.count) };
}
