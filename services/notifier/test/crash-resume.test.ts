import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Receiver } from './receiver';
import { TestSystem } from './harness';

const ROOT = join(__dirname, '..', '..', '..');

describe('notifier killed mid-series', () => {
  const system = new TestSystem('notifcrash');
  let receiver: Receiver;
  let child: ChildProcess | undefined;
  let stderr = '';

  /** The real service entry point in a process of its own, so it can be killed without a chance to clean up. */
  const launch = (): ChildProcess => {
    const proc = spawn(process.execPath, ['--import', 'tsx', join('services', 'notifier', 'src', 'main.ts')], {
      cwd: ROOT,
      env: { ...process.env, ...system.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    return proc;
  };
  const exited = (proc: ChildProcess): Promise<number | null> =>
    proc.exitCode !== null || proc.signalCode !== null
      ? Promise.resolve(proc.exitCode)
      : new Promise((resolve) => proc.once('exit', (code) => resolve(code)));

  beforeAll(async () => {
    await system.start({ withNotifier: false });
  });

  afterAll(async () => {
    if (child?.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
    await receiver?.close();
    await system.stop();
  });

  it('resumes the series after a restart without losing it or repeating the successful attempt', async () => {
    let first: ChildProcess | undefined;
    receiver = await new Receiver((n) => {
      if (n === 2) {
        // Killed while attempt 2 is in flight: nothing about it reaches the database.
        first?.kill('SIGKILL');
        return 'hang';
      }
      return { status: n <= 3 ? 500 : 200 };
    }).start();
    const event = system.event(await system.createShop(receiver.url, 'secret'));
    first = launch();
    await system.publish(event);
    await receiver.nth(2);
    await exited(first);
    expect(first.signalCode).toBe('SIGKILL');

    child = launch();
    await receiver.nth(4);
    expect(await system.settled(event.event_id, 30_000)).toBe('succeeded');
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);

    // Attempt 2 went out twice (its first send died with the process); the 200 went out once.
    expect(receiver.hits.map((h) => h.headers['x-webhook-attempt'])).toEqual(['1', '2', '2', '3']);
    expect(new Set(receiver.hits.map((h) => h.headers['x-webhook-id']))).toEqual(new Set([`evt_${event.event_id}`]));
    expect((await system.attempts(event.event_id)).map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    const { rows } = await system.pg!.query('SELECT count(*)::int AS n FROM notifier.deliveries');
    expect(rows[0]).toEqual({ n: 1 });
  }, 60_000);
});
