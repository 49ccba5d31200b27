// `PAYMENT_PROVIDERS=fakes npm start` runs tools/provider-fakes' main as a process (docs/providers.md, "Local run"):
// it starts both fakes from the environment alone (no secret as an argument), and a payment made through each with
// the real adapter and paid over its control API comes back as the provider's signed callback, which the adapter
// verifies, exactly as the gateway would.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { heleketProvider, raiffeisenSbpProvider, type CallbackVerdict, type PaymentProvider } from '@pl/providers';

const ROOT = join(__dirname, '..', '..');
const secret = () => randomBytes(24).toString('hex');
const raiffeisenKeys = { sbpMerchantId: `MA${randomBytes(5).toString('hex').toUpperCase()}`, secretKey: secret() };
const heleketKeys = { merchantId: randomUUID(), paymentKey: secret(), payoutKey: secret() };

/** Stands in for the gateway's callback route: each callback as the adapter's verdict, by path. */
class CallbackCatcher {
  private readonly waiting = new Map<string, (verdict: CallbackVerdict) => void>();
  private readonly providers = new Map<string, PaymentProvider>();
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const provider = this.providers.get(path);
      const verdict = provider?.verifyCallback({
        rawBody: Buffer.concat(chunks),
        header: (name) => {
          const v = req.headers[name.toLowerCase()];
          return Array.isArray(v) ? v[0] : v;
        },
        remoteAddress: req.socket.remoteAddress ?? '',
      });
      res.writeHead(verdict?.reply.status ?? 404, { 'content-type': verdict?.reply.contentType ?? 'text/plain' });
      res.end(verdict?.reply.body ?? '');
      if (verdict) this.waiting.get(path)?.(verdict);
    });
  });

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  route(path: string, provider: PaymentProvider): void {
    this.providers.set(path, provider);
  }

  next(path: string): Promise<CallbackVerdict> {
    return new Promise((resolve) => this.waiting.set(path, resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

let fakes: ChildProcess;
let catcher: CallbackCatcher;
let raiffeisenApi: string;
let heleketApi: string;
let gatewayUrl: string;

beforeAll(async () => {
  catcher = new CallbackCatcher();
  gatewayUrl = await catcher.start();
  // As npm start runs it: the built main, its whole configuration in the environment (PATH aside).
  fakes = spawn(process.execPath, ['tools/provider-fakes/dist/main.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      RAIFFEISEN_FAKE_PORT: '0',
      HELEKET_FAKE_PORT: '0',
      RAIFFEISEN_SBP_MERCHANT_ID: raiffeisenKeys.sbpMerchantId,
      RAIFFEISEN_SECRET_KEY: raiffeisenKeys.secretKey,
      RAIFFEISEN_FAKE_CALLBACK_URL: `${gatewayUrl}/callbacks/v1/raiffeisen-sbp`,
      HELEKET_MERCHANT_ID: heleketKeys.merchantId,
      HELEKET_PAYMENT_KEY: heleketKeys.paymentKey,
      HELEKET_PAYOUT_KEY: heleketKeys.payoutKey,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: fakes.stdout! })[Symbol.asyncIterator]();
  const first = String((await lines.next()).value);
  const second = String((await lines.next()).value);
  raiffeisenApi = /RAIFFEISEN_SBP_API_URL=(\S+)/.exec(first)?.[1] ?? '';
  heleketApi = /HELEKET_API_URL=(\S+)/.exec(second)?.[1] ?? '';
}, 30_000);

afterAll(async () => {
  if (fakes?.exitCode === null) {
    fakes.kill('SIGTERM');
    await once(fakes, 'exit');
  }
  await catcher?.close();
});

const request = (orderId: string, method: 'sbp' | 'crypto') => ({
  orderId,
  linkId: randomUUID(),
  method,
  network: method === 'crypto' ? ('USDT-TRC20' as const) : null,
  payerAmountKopecks: 250_000,
  description: null,
  merchantOrderId: 'ops-1',
  expiresAt: new Date(Date.now() + 3_600_000),
  returnUrl: null,
});

const control = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the provider fakes process of PAYMENT_PROVIDERS=fakes npm start', () => {
  it('announces both fakes on local ports', () => {
    expect(raiffeisenApi).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect(heleketApi).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('Raiffeisen SBP: a QR registered by the real adapter and paid over the control API sends a callback the adapter verifies as paid', async () => {
    const adapter = raiffeisenSbpProvider({ apiUrl: raiffeisenApi, ...raiffeisenKeys, callbackIps: [] });
    catcher.route('/callbacks/v1/raiffeisen-sbp', adapter);
    const orderId = `ops-${randomBytes(6).toString('hex')}-1`;
    const payment = await adapter.createPayment(request(orderId, 'sbp'), { timeoutMs: 5000 });
    const callback = catcher.next('/callbacks/v1/raiffeisen-sbp');
    const paid = await control(`${raiffeisenApi.replace(/\/api$/, '')}/_fake/qrs/${payment.gatewayPaymentId}/pay`, {});
    expect(paid.status).toBe(200);
    const verdict = await callback;
    expect(verdict).toMatchObject({ ok: true, event: { kind: 'payment', state: { gatewayPaymentId: payment.gatewayPaymentId, status: 'paid' } } });
  });

  it('Heleket: an invoice made by the real adapter and set paid over the control API sends a callback the adapter verifies as paid', async () => {
    const adapter = heleketProvider({ apiUrl: heleketApi, ...heleketKeys, publicBaseUrl: gatewayUrl, callbackIps: [] });
    catcher.route('/callbacks/v1/heleket', adapter);
    const orderId = `ops-${randomBytes(6).toString('hex')}-1`;
    const payment = await adapter.createPayment(request(orderId, 'crypto'), { timeoutMs: 5000 });
    const callback = catcher.next('/callbacks/v1/heleket');
    const paid = await control(`${heleketApi}/_fake/invoices/${payment.gatewayPaymentId}/status`, { status: 'paid' });
    expect(paid.status).toBe(200);
    const verdict = await callback;
    expect(verdict).toMatchObject({ ok: true, event: { kind: 'payment', state: { gatewayPaymentId: payment.gatewayPaymentId, status: 'paid' } } });
  });
});
