import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, freePort } from '@pl/testing';

/**
 * Postgres, NATS and Redis servers owned by one test file, on free ports, that the test really stops
 * and starts again. The machine's shared servers are used by other test files in parallel and must
 * never be restarted; these are.
 */

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;

/** Sends `line` (if any) to 127.0.0.1:port and resolves true when the first bytes back start with `expect`. */
function answers(port: number, expect: string, line?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => {
      if (line !== undefined) socket.write(line);
    });
    socket.once('data', (data: Buffer) => done(data.toString('latin1').startsWith(expect)));
  });
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

/** Processes this test spawned, killed when the worker exits whatever happened to its afterAll. */
const spawned = new Set<ChildProcess>();
const postmasterPidFiles = new Set<string>();
process.once('exit', () => {
  for (const child of spawned) child.kill('SIGKILL');
  for (const file of postmasterPidFiles) {
    try {
      // SIGQUIT is Postgres's immediate shutdown; synchronous, as an 'exit' handler must be.
      process.kill(Number(readFileSync(file, 'utf8').split('\n')[0]), 'SIGQUIT');
    } catch {
      // not running
    }
  }
});

/** One server process at a time, started again on demand (same arguments) and killed without a goodbye. */
class ServerProcess {
  private child: ChildProcess | undefined;

  /**
   * Spawns the server and waits until `ready` answers. A server that cannot be spawned, or exits before it
   * answers (its port taken meanwhile, say), fails the start at once with the last of its log.
   */
  async start(command: string, args: string[], ready: () => Promise<boolean>): Promise<void> {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    spawned.add(child);
    this.child = child;
    // Read for the server's whole life (a full pipe would block it); the tail is kept for a failed start.
    let log = '';
    const keep = (chunk: Buffer): void => {
      log = (log + chunk.toString('utf8')).slice(-2000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let ended: string | undefined;
    child.once('error', (e) => (ended ??= `could not be started (${e.message})`));
    child.once('exit', (code, signal) => {
      spawned.delete(child);
      ended ??= `exited before it answered (code ${code}, signal ${signal})`;
    });
    // Polling is the only way to learn that a freshly spawned server accepts connections.
    await eventually(
      async () => {
        if (ended !== undefined) throw new Error(`${command} ${ended}: ${log.trim() || '(it logged nothing)'}`);
        return ready();
      },
      `${command} answering`,
      10_000,
    );
  }

  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    child.kill('SIGKILL');
    await exited(child);
  }
}

// --- Postgres -----------------------------------------------------------------------------------------

function postgresBin(name: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const path = `/usr/lib/postgresql/${v}/bin/${name}`;
    if (existsSync(path)) return path;
  }
  throw new Error(`no ${name} under /usr/lib/postgresql/*/bin`);
}

/** initdb and pg_ctl refuse to run as root: as root they run as the `postgres` user, who owns the dir. */
async function asPostgres(command: string, args: string[]): Promise<void> {
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  await run(file, argv, { timeout: 60_000 });
}

/** A Postgres cluster of its own in a temp dir: trust auth, user `postgres`, fsync off (a test cluster). */
export class PrivatePostgres {
  private constructor(
    private readonly dir: string,
    readonly port: number,
  ) {}

  /** Server URL without a database, for createTestDatabase / startSystem's `postgresHostUrl`. */
  get hostUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}`;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'pl-pg-'));
    if (isRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      chownSync(dir, uid, gid);
    }
    const pg = new PrivatePostgres(dir, await freePort());
    await asPostgres(postgresBin('initdb'), ['-D', pg.dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    postmasterPidFiles.add(join(pg.dataDir, 'postmaster.pid'));
    await pg.startServer();
    return pg;
  }

  /** Starts the server (again) and waits until it accepts connections. */
  async startServer(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      `-k ${this.dir}`,
      "-c listen_addresses='127.0.0.1'",
      '-c fsync=off',
      '-c full_page_writes=off',
      '-c shared_buffers=16MB',
      '-c max_connections=100',
    ].join(' ');
    await asPostgres(postgresBin('pg_ctl'), ['-D', this.dataDir, '-l', join(this.dir, 'server.log'), '-o', options, '-w', '-t', '30', 'start']);
  }

  /** Kills the server as a crash would (`pg_ctl stop -m immediate`): backends die, the next start recovers from WAL. */
  async crash(): Promise<void> {
    await asPostgres(postgresBin('pg_ctl'), ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
  }

  /** Stops the server for good and removes its files. */
  async close(): Promise<void> {
    await asPostgres(postgresBin('pg_ctl'), ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    postmasterPidFiles.delete(join(this.dataDir, 'postmaster.pid'));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// --- NATS ---------------------------------------------------------------------------------------------

/** A nats-server of its own (core NATS: the services use no JetStream). */
export class PrivateNats {
  private readonly server = new ServerProcess();

  private constructor(readonly port: number) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateNats> {
    const nats = new PrivateNats(await freePort());
    await nats.startServer();
    return nats;
  }

  /** Starts the server (again, on the same port) and waits for its INFO line. */
  async startServer(): Promise<void> {
    await this.server.start('nats-server', ['-a', '127.0.0.1', '-p', String(this.port)], () => answers(this.port, 'INFO'));
  }

  /** SIGKILL: connections drop at once, no goodbye to the clients. */
  kill(): Promise<void> {
    return this.server.kill();
  }

  close(): Promise<void> {
    return this.kill();
  }
}

// --- Redis --------------------------------------------------------------------------------------------

export interface PrivateRedisOptions {
  /** `appendonly yes` + `appendfsync always`: every write is on disk before Redis answers it. */
  aof?: boolean;
}

/** A redis-server of its own; by default it keeps nothing on disk, as the machine's Redis does. */
export class PrivateRedis {
  private readonly server = new ServerProcess();

  private constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly options: PrivateRedisOptions,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
    const redis = new PrivateRedis(mkdtempSync(join(tmpdir(), 'pl-redis-')), await freePort(), options);
    await redis.startServer();
    return redis;
  }

  /** Starts the server (again, same port and dir) and waits until it answers PING (not -LOADING). */
  async startServer(): Promise<void> {
    const persistence = this.options.aof ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    // No --logfile: its log goes to stdout, the tail of which a failed start reports.
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', this.dir];
    await this.server.start('redis-server', args, () => answers(this.port, '+PONG', 'PING\r\n'));
  }

  /** SIGKILL: no SHUTDOWN, no final save; only what was already on disk survives. */
  kill(): Promise<void> {
    return this.server.kill();
  }

  async close(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
