import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { freePort } from '@pl/testing';

/** The fakes as a process (`src/main.ts`, run through tsx as `npm start` would run dist/main.js): configured by the environment only. */

const MAIN = join(__dirname, '..', 'src', 'main.ts');

function start(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  return { child, output: () => output };
}

async function announced(child: ChildProcess): Promise<string> {
  let text = '';
  for await (const chunk of child.stdout!) {
    text += (chunk as Buffer).toString();
    if (text.includes('\n')) return text;
  }
  return text;
}

it('serves the Raiffeisen fake on the port the environment names (the Heleket fake beside it), with the control API', async () => {
  const port = await freePort();
  const { child } = start({
    RAIFFEISEN_SECRET_KEY: 'process-secret',
    RAIFFEISEN_SBP_MERCHANT_ID: 'MA0000000552',
    RAIFFEISEN_FAKE_PORT: String(port),
    HELEKET_MERCHANT_ID: 'process-merchant',
    HELEKET_PAYMENT_KEY: 'process-payment-key',
    HELEKET_PAYOUT_KEY: 'process-payout-key',
    HELEKET_FAKE_PORT: '0',
  });
  try {
    expect(await announced(child)).toContain(`RAIFFEISEN_SBP_API_URL=http://127.0.0.1:${port}/api`);
    const register = await fetch(`http://127.0.0.1:${port}/api/sbp/v1/qr/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ qrType: 'QRDynamic', order: 'process-1', sbpMerchantId: 'MA0000000552', amount: 10.5, currency: 'RUB' }),
    });
    expect(register.status).toBe(200);
    const unauthorized = await fetch(`http://127.0.0.1:${port}/api/sbp/v1/refund/r1`, { headers: { Authorization: 'Bearer wrong' } });
    expect(unauthorized.status).toBe(401);
    const qrs = (await (await fetch(`http://127.0.0.1:${port}/_fake/qrs`)).json()) as { order: string; amount: string }[];
    expect(qrs).toEqual([expect.objectContaining({ order: 'process-1', amount: '10.5' })]);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

it('refuses to start without a key, naming it', async () => {
  const { child, output } = start({ RAIFFEISEN_SBP_MERCHANT_ID: 'MA0000000552', RAIFFEISEN_FAKE_PORT: '0' });
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code).toBe(1);
  expect(output()).toContain('RAIFFEISEN_SECRET_KEY is required');
});
