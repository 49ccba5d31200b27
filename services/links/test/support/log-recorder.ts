import { Writable } from 'node:stream';
import pino from 'pino';

export interface LogLine {
  level: number;
  msg: string;
  component?: string;
}

/** A pino logger whose lines a test can read and wait for. */
export function recordingLogger(level: pino.Level = 'debug'): {
  log: pino.Logger;
  lines: LogLine[];
  until(match: (lines: LogLine[]) => boolean): Promise<void>;
} {
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text.trim()) lines.push(JSON.parse(text) as LogLine);
      for (const w of waiters) w();
      done();
    },
  });
  return {
    log: pino({ level }, stream),
    lines,
    until(match) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`log condition not met; last lines: ${JSON.stringify(lines.slice(-5))}`));
        }, 20_000);
        function check(): void {
          if (!match(lines)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        }
        waiters.add(check);
        check();
      });
    },
  };
}
