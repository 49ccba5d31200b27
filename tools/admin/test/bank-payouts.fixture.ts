import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Db } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { LinkRepository, LINKS_SCHEMA, migrateLinks, sampleNewLink } from '@pl/links/testing';
import { renderOutcome, runCli } from '../src/cli';
import type { CliIo } from '../src/secrets';

/** The platform's account (Sberbank's published INN, KPP and BIK; the account's control key computed for the BIK). */
export const PAYER_ENV = {
  PAYOUT_PAYER_NAME: 'ООО «Платёжные ссылки»',
  PAYOUT_PAYER_INN: '7707083893',
  PAYOUT_PAYER_KPP: '773601001',
  PAYOUT_PAYER_BIK: '044525225',
  PAYOUT_PAYER_ACCOUNT: '40702810938000012345',
  PAYOUT_PAYER_BANK: 'ПАО СБЕРБАНК',
} as const;

/** Merchants' accounts: a company (with a KPP) and a sole proprietor (12-digit INN, none). */
export const COMPANY = { recipient_name: 'ООО "Ромашка"', inn: '7830002293', kpp: '783001001', bik: '044525974', account: '40802810400000012345' };
export const SOLE_PROPRIETOR = { recipient_name: 'ИП Иванов Иван Иванович', inn: '500100732259', bik: '044525225', account: '40802810738000000017' };

export interface CliRun {
  exitCode: number;
  body: Record<string, unknown>;
  stderr: string;
}

/** One database with the links schema, and the CLI run in-process against it as main.ts runs it. */
export class BankPayoutsSystem {
  readonly warnings: string[] = [];
  private readonly io: CliIo = { readStdin: () => Promise.resolve(''), warn: (m) => void this.warnings.push(m) };

  private constructor(
    readonly database: TestDatabase,
    readonly db: Db,
  ) {}

  static async start(label: string): Promise<BankPayoutsSystem> {
    const log = pino({ level: 'silent' });
    const database = await createTestDatabase(label);
    await migrateLinks(database.url, log);
    return new BankPayoutsSystem(database, new Db({ url: database.url, schema: LINKS_SCHEMA, log }));
  }

  async run(args: string[], env: Record<string, string> = PAYER_ENV): Promise<CliRun> {
    const out = renderOutcome(await runCli(args, { DATABASE_URL: this.database.url, ...env }, this.io));
    const last = out.stderr.trim().split('\n').pop() ?? '';
    return { exitCode: out.exitCode, body: JSON.parse(out.stdout || last) as Record<string, unknown>, stderr: out.stderr };
  }

  /** A shop of a new merchant credited with `links` paid sample links (1,225.30 RUB each), its credits available at once. */
  async fundedShop(livemode = true, links = 2): Promise<{ merchantId: string; shopId: number }> {
    const repo = new LinkRepository(this.db);
    const merchantId = randomUUID();
    const shopId = 1 + Math.floor(Math.random() * 1e9);
    for (let i = 0; i < links; i++) {
      const link = await repo.insert(sampleNewLink({ merchantId, shopId, livemode }));
      const settled = await repo.settle(
        link,
        { to: 'paid', failureReason: null, gatewayProvider: 'sandbox', gatewayPaymentId: `sbx_${link.id}`, at: new Date() },
        null,
      );
      if (!settled) throw new Error('the link did not settle');
    }
    return { merchantId, shopId };
  }

  /** A payout made as the payouts service makes it (payout_create: its posting and checks), with no hold. */
  async payout(
    shop: { merchantId: string; shopId: number },
    o: {
      amount: number;
      fee?: number;
      status?: 'approved' | 'pending_approval';
      livemode?: boolean;
      rail?: 'bank' | 'heleket' | 'sandbox';
      details?: object;
    },
  ): Promise<string> {
    const id = randomUUID();
    const rail = o.rail ?? 'bank';
    const details = o.details ?? COMPANY;
    const type = rail === 'heleket' ? 'crypto_address' : 'bank_account';
    await this.db.query(`SELECT payout_create($1, $2, $3, $4, $5, $6, $7, NULL, $8, $9, '•••• 0000', $10::jsonb, $11, $12, now(), 0, 100000000000)`, [
      id,
      shop.merchantId,
      shop.shopId,
      o.livemode ?? true,
      o.amount,
      o.fee ?? 0,
      o.status ?? 'approved',
      randomUUID(),
      type,
      JSON.stringify(details),
      rail,
      randomUUID(),
    ]);
    return id;
  }

  async statusOf(ids: readonly string[]): Promise<Record<string, string>> {
    const rows = await this.db.query<{ id: string; status: string }>(`SELECT id, status FROM payouts WHERE id = ANY($1::uuid[])`, [ids]);
    return Object.fromEntries(rows.map((r) => [r.id, r.status]));
  }

  async stop(): Promise<void> {
    await this.db.close();
    await this.database.drop();
  }
}

/** Windows-1251 bytes of text, from the table TextDecoder reads them by (Node encodes no single-byte code page). */
const WIN1251 = (() => {
  const decoded = new TextDecoder('windows-1251').decode(Uint8Array.from({ length: 256 }, (_, i) => i));
  // Every character of the code page is one UTF-16 unit, so the i-th unit is byte i.
  return new Map(Array.from({ length: decoded.length }, (_, i) => [decoded.charAt(i), i]));
})();

export function windows1251(text: string): Buffer {
  return Buffer.from(
    Array.from({ length: text.length }, (_, i) => {
      const ch = text.charAt(i);
      const byte = WIN1251.get(ch);
      if (byte === undefined) throw new Error(`${ch} is not in windows-1251`);
      return byte;
    }),
  );
}

/** `DD.MM.YYYY` of the instant in Moscow, as a 1C file dates it. */
export const moscowDay = (at: Date): string =>
  new Intl.DateTimeFormat('ru-RU', { timeZone: 'Europe/Moscow', day: '2-digit', month: '2-digit', year: 'numeric' }).format(at);
