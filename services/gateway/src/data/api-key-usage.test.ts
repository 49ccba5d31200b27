import pino from 'pino';
import { ApiKeyUsage } from './api-key-usage';

const log = pino({ level: 'silent' });

describe('ApiKeyUsage', () => {
  it('writes a key use at most once per period, each key on its own', async () => {
    const written: string[] = [];
    const usage = new ApiKeyUsage(async (k) => void written.push(k), log, { everyMs: 60_000, maxKeys: 10 });
    for (let i = 0; i < 50; i++) usage.used('pk_live_a');
    usage.used('pk_live_b');
    expect(written).toEqual(['pk_live_a', 'pk_live_b']);
  });

  it('tries again on the next use after a failed write', async () => {
    let fail = true;
    const written: string[] = [];
    const usage = new ApiKeyUsage(
      async (k) => {
        if (fail) throw new Error('database down');
        written.push(k);
      },
      log,
      { everyMs: 60_000, maxKeys: 10 },
    );
    usage.used('pk_live_a');
    await new Promise(setImmediate);
    fail = false;
    usage.used('pk_live_a');
    expect(written).toEqual(['pk_live_a']);
  });
});
