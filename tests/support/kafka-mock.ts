import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

/**
 * A Kafka-protocol mock cluster (librdkafka's) owned by one test file, whose brokers the test takes down
 * and brings back. The machine's shared mock (scripts/local-deps.sh, run by kcat) serves every other test
 * file and must never go down; this one may. tools/kafka-mock/kafka-mock.c is compiled on first use into
 * .local/bin (git-ignored), so a fresh clone needs only a C compiler and librdkafka-dev.
 */

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');
const SOURCE = join(ROOT, 'tools/kafka-mock/kafka-mock.c');
const BUILD_SCRIPT = join(ROOT, 'tools/kafka-mock/build.sh');
const BINARY = join(ROOT, '.local/bin/kafka-mock');
const STOP_GRACE_MS = 5000;

const mtimeMs = (path: string): number | undefined => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
};

/**
 * Builds the binary when it is missing or older than its source, once per process. Two Jest workers may
 * both build: the script compiles to a name of its own and renames, so each sees a whole binary, never a
 * torn one.
 */
let ensured: Promise<string> | undefined;
const ensureBinary = (): Promise<string> =>
  (ensured ??= buildIfStale().catch((e: unknown) => {
    ensured = undefined;
    throw e;
  }));

async function buildIfStale(): Promise<string> {
  const built = mtimeMs(BINARY);
  const sources = Math.max(mtimeMs(SOURCE) ?? 0, mtimeMs(BUILD_SCRIPT) ?? 0);
  if (built === undefined || built < sources) {
    try {
      await run('bash', [BUILD_SCRIPT, BINARY], { timeout: 120_000 });
    } catch (e) {
      const stderr = (e as { stderr?: string }).stderr ?? '';
      throw new Error(`cannot build ${BINARY} (needs cc and librdkafka-dev): ${stderr || String(e)}`, { cause: e });
    }
  }
  return BINARY;
}

/** Mocks this test file started, killed when the worker exits whatever happened to its afterAll. */
const running = new Set<ChildProcessWithoutNullStreams>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export type BrokerSelector = number | 'all';

export class KafkaMockCluster {
  private readonly pending: { resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
  private exitError: Error | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    /** The comma list a client's `brokers` / KAFKA_BROKERS takes. */
    readonly bootstrapServers: string,
    lines: AsyncIterable<string>,
    stderr: () => string,
  ) {
    // A write after the mock died fails with EPIPE; `exited` reports that death, with its stderr.
    child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolveExit) => {
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        running.delete(child);
        this.exitError = new Error(`kafka-mock exited (code ${code}, signal ${signal}): ${stderr()}`);
        for (const p of this.pending.splice(0)) p.reject(this.exitError);
        resolveExit();
      };
      if (child.exitCode !== null || child.signalCode !== null) onExit(child.exitCode, child.signalCode);
      else child.once('exit', onExit);
    });
    void (async () => {
      for await (const line of lines) this.pending.shift()?.resolve(line);
    })();
  }

  /** Starts a cluster of `brokers` brokers (ids 1..n) on free ports of 127.0.0.1; topics auto-create (4 partitions). */
  static async start(options: { brokers?: number } = {}): Promise<KafkaMockCluster> {
    const binary = await ensureBinary();
    const child = spawn(binary, [String(options.brokers ?? 1)], { stdio: ['pipe', 'pipe', 'pipe'] });
    running.add(child);
    // librdkafka's warnings and errors, the last few kept for the error of a mock that died.
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk.toString('utf8'));
      if (stderr.length > 50) stderr.shift();
    });
    const lastStderr = (): string => stderr.join('').trim();
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const first = await Promise.race([
      lines.next(),
      new Promise<never>((_, reject) => child.once('error', reject)),
      new Promise<never>((_, reject) =>
        child.once('exit', (code) => reject(new Error(`kafka-mock exited at start (code ${code}): ${lastStderr()}`))),
      ),
    ]);
    if (first.done || !/^[^\s,]+:\d+(,[^\s,]+:\d+)*$/.test(first.value)) {
      child.kill('SIGKILL');
      throw new Error(`kafka-mock printed no bootstrap servers: ${first.done ? '(nothing)' : first.value}`);
    }
    return new KafkaMockCluster(child, first.value, { [Symbol.asyncIterator]: () => lines }, lastStderr);
  }

  /** Creates a topic with the given partitions and replication factor (at most the broker count). */
  createTopic(name: string, partitions: number, replication: number): Promise<void> {
    return this.command(`topic ${name} ${partitions} ${replication}`);
  }

  /** The broker (or every broker) closes its connections and refuses new ones until `up`. */
  down(broker: BrokerSelector = 'all'): Promise<void> {
    return this.command(`down ${broker}`);
  }

  up(broker: BrokerSelector = 'all'): Promise<void> {
    return this.command(`up ${broker}`);
  }

  /** Ends the cluster (EOF on its stdin); SIGKILL if it has not exited within a few seconds. */
  async stop(): Promise<void> {
    if (this.exitError) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private command(line: string): Promise<void> {
    if (/[\r\n]/.test(line)) return Promise.reject(new Error('a kafka-mock command is one line'));
    if (this.exitError) return Promise.reject(this.exitError);
    return new Promise<string>((resolveLine, reject) => {
      this.pending.push({ resolve: resolveLine, reject });
      this.child.stdin.write(`${line}\n`);
    }).then((answer) => {
      if (answer !== 'ok') throw new Error(`kafka-mock: ${line}: ${answer}`);
    });
  }
}
