import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Pool } from 'pg';
import { createLinkBody, formatMoscow, formatMoscowOrNull, listLinksQuery, parseJsonPreservingNumbers, uuid } from '@pl/contracts';
import { computeAmounts, formatKopecks } from '@pl/money';
import { createLogger } from '@pl/telemetry';
import { decodeCursor, encodeCursor } from '@pl/links';
import { ReferenceQueries, type LinkRow } from './queries';

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
// The gateway's shape checks (middlewares/credentials.ts).
const API_KEY = /^pk_live_[A-Za-z0-9_-]{1,128}$/;
const API_SECRET = /^sk_live_[A-Za-z0-9_-]{1,256}$/;

/** The payment-link object of the interface, built as the links service builds it. */
function toPaymentLink(r: LinkRow, base: string): Record<string, unknown> {
  const url = `${base}/p/${r.id}`;
  return {
    id: r.id,
    shop_id: Number(r.shop_id),
    order_id: r.order_id,
    description: r.description,
    currency: 'RUB',
    amount: formatKopecks(Number(r.amount)),
    fee_bps: r.fee_bps,
    fee_percent_bp: r.fee_percent_bp,
    fee_payer: r.fee_payer,
    payer_amount: formatKopecks(Number(r.payer_amount)),
    merchant_credit: formatKopecks(Number(r.merchant_credit)),
    platform_revenue: formatKopecks(Number(r.platform_revenue)),
    status: r.status,
    gateway_provider: r.gateway_provider,
    gateway_payment_id: r.gateway_payment_id,
    to_currency: r.to_currency,
    network: r.network,
    deposit_address: r.deposit_address,
    payer_currency: r.payer_currency,
    payer_crypto_amount: r.payer_crypto_amount,
    qr: r.qr,
    checkout_url: url,
    pay_url: url,
    paymentUrl: url,
    expires_at: formatMoscow(r.expires_at),
    paid_at: formatMoscowOrNull(r.paid_at),
    created_at: formatMoscow(r.created_at),
    updated_at: formatMoscow(r.updated_at),
  };
}

export interface ReferenceOptions {
  port: number;
  databaseUrl: string;
  publicBaseUrl: string;
}

export async function startReference(options: ReferenceOptions): Promise<{ port: number; stop(): Promise<void> }> {
  const log = createLogger('bench-reference');
  // The same pool settings as @pl/db gives every service.
  const pool = new Pool({
    connectionString: options.databaseUrl,
    max: 10,
    connectionTimeoutMillis: 2000,
    idleTimeoutMillis: 30_000,
    query_timeout: 5000,
    options: '-c statement_timeout=5000 -c TimeZone=UTC',
  });
  pool.on('error', (err) => log.warn({ err }, 'idle postgres client failed'));
  const q = new ReferenceQueries(pool);
  const base = options.publicBaseUrl;

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((req, res, next) => {
    const id = randomUUID();
    res.set('X-Request-Id', id);
    res.set('Cache-Control', 'no-store');
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        { request_id: id, method: req.method, path: req.path, status: res.statusCode, duration_ms: Math.round(durationMs * 10) / 10 },
        'request',
      );
    });
    next();
  });

  const authenticate = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = req.get('x-api-key') ?? '';
    const secret = req.get('x-api-secret') ?? '';
    if (!API_KEY.test(key) || !API_SECRET.test(secret)) throw new HttpError(401, 'auth.err.unauthorized');
    const row = await q.apiKey(key);
    const expected = row?.secret_sha256 ?? Buffer.alloc(32);
    const actual = sha256(secret);
    if (!row || actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw new HttpError(401, 'auth.err.unauthorized');
    res.locals.merchantId = row.id;
    next();
  };
  const merchantOf = (res: Response): string => res.locals.merchantId as string;
  const linkIdOf = (req: Request): string => {
    const id = req.params.id;
    if (typeof id !== 'string' || !uuid.safeParse(id).success) throw new HttpError(404, 'payment_link.err.not_found');
    return id.toLowerCase();
  };
  const visible = (row: LinkRow | undefined, merchantId: string): LinkRow => {
    if (!row) throw new HttpError(404, 'payment_link.err.not_found');
    if (row.merchant_id !== merchantId) throw new HttpError(403, 'common.err.forbidden');
    return row;
  };
  const expireIfDue = async (row: LinkRow): Promise<LinkRow> =>
    row.status !== 'pending' || row.expires_at.getTime() > Date.now() ? row : ((await q.expire(row.id)) ?? (await q.byId(row.id)) ?? row);

  const router = express.Router();
  router.post('/', authenticate, express.text({ type: () => true, limit: 64 * 1024 }), async (req, res) => {
    let body: unknown;
    try {
      body = parseJsonPreservingNumbers(String(req.body ?? ''));
    } catch {
      throw new HttpError(400, 'common.err.invalid_json');
    }
    const parsed = createLinkBody.safeParse(body);
    if (!parsed.success || parsed.data.shop_id === undefined) throw new HttpError(400, 'common.err.validation_failed');
    const input = parsed.data;
    const merchantId = merchantOf(res);
    const shop = await q.shop(input.shop_id!);
    if (!shop) throw new HttpError(404, 'shop.err.not_found');
    if (shop.merchant_id !== merchantId) throw new HttpError(403, 'common.err.forbidden');
    if (shop.status !== 'approved') throw new HttpError(422, 'shop.err.not_approved');
    const amounts = computeAmounts(input.amount, shop.crypto_bps, shop.fee_payer);
    const row = await q.insert({
      id: randomUUID(),
      merchantId,
      shopId: Number(shop.id),
      orderId: input.order_id ?? null,
      description: input.description ?? null,
      amount: input.amount,
      bps: shop.crypto_bps,
      sbpBps: shop.sbp_bps,
      feePayer: shop.fee_payer,
      payerAmount: amounts.payerAmount,
      merchantCredit: amounts.merchantCredit,
      platformRevenue: amounts.platformRevenue,
      expiresInMinutes: input.expires_in_minutes ?? 1440,
    });
    res.status(201).json(toPaymentLink(row, base));
  });
  router.get('/', authenticate, async (req, res) => {
    const parsed = listLinksQuery.safeParse(req.query);
    if (!parsed.success) throw new HttpError(400, 'common.err.validation_failed');
    const limit = parsed.data.limit ?? 20;
    let after: { createdAtMicros: bigint; id: string } | null;
    try {
      after = parsed.data.cursor === undefined ? null : decodeCursor(parsed.data.cursor);
    } catch {
      throw new HttpError(400, 'common.err.validation_failed');
    }
    const merchantId = merchantOf(res);
    const rows = await q.page(merchantId, after, limit + 1);
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    // A due pending link is shown expired (the sweeper writes it soon): the list stays a read.
    const now = Date.now();
    const links = items.map((r) => toPaymentLink(r.status === 'pending' && r.expires_at.getTime() <= now ? { ...r, status: 'expired' } : r, base));
    const hasMore = rows.length > limit;
    res.json({
      payment_links: links,
      payments: links,
      has_more: hasMore,
      next_cursor: hasMore && last ? encodeCursor({ createdAtMicros: BigInt(last.created_at_us), id: last.id }) : null,
    });
  });
  router.get('/:id', authenticate, async (req, res) => {
    const row = visible(await q.byId(linkIdOf(req)), merchantOf(res));
    res.json(toPaymentLink(await expireIfDue(row), base));
  });
  router.post('/:id/cancel', authenticate, express.text({ type: () => true, limit: 64 * 1024 }), async (req, res) => {
    const id = linkIdOf(req);
    const canceled = await q.cancel(id, merchantOf(res));
    if (canceled) {
      res.json(toPaymentLink(canceled, base));
      return;
    }
    visible(await q.byId(id), merchantOf(res));
    throw new HttpError(409, 'payment_link.err.not_pending');
  });
  app.use('/merchant/v1/payment-links', router);
  app.use((_req, _res, next) => next(new HttpError(404, 'common.err.not_found')));
  // Four parameters: that is how express knows an error handler.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof HttpError) {
      res.status(err.status).json({ error: { code: err.code, message: err.code } });
      return;
    }
    log.error({ err }, 'reference request failed');
    res.status(500).json({ error: { code: 'common.err.internal', message: 'Internal error' } });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(options.port, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  log.info({ port }, 'bench reference started');
  return {
    port,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
      const { shutdownTracing } = await import('../../libs/telemetry/src/tracing-state');
      await shutdownTracing();
    },
  };
}
