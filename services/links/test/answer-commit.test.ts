// ADR 0043: a select's attempt opening commits without waiting for its WAL flush, and its answer waits for it, which
// flushes the opening too before the buyer is shown the payment: one flush per select, whichever the provider.
import { randomUUID } from 'node:crypto';
import { Db } from '@pl/db';
import { parseExchangeRates, ProviderRegistry, SandboxProvider, type PaymentProvider } from '@pl/providers';
import type { QueryResultRow } from 'pg';
import pino from 'pino';
import { AttemptRepository } from '../src/data/attempt.repository';
import { LINKS_SCHEMA } from '../src/data/migrate';
import { IdempotencyRepository } from '../src/data/idempotency.repository';
import { LinkRepository } from '../src/data/link.repository';
import { ShopClient } from '../src/data/shop.client';
import { UnresolvedPaymentRepository } from '../src/data/unresolved-payment.repository';
import type { LinkDeps } from '../src/domain/ports';
import { selectMethod } from '../src/domain/select-method';
import { StandInProvider } from '../../../tests/support/stand-in-provider';
import { apiKey, platform, startLinksSystem, type LinksSystem } from './support/links-system';

/** The links database, one connection (so a statement's session settings would show in the next), every text kept. */
class RecordingDb extends Db {
  readonly statements: string[] = [];

  override async query<R extends QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    this.statements.push(sql);
    return super.query<R>(sql, params);
  }
}

const sandbox = new SandboxProvider({ rates: parseExchangeRates('USDT=95,BTC=6500000,ETH=250000,TON=450'), callbackSecret: 's'.repeat(32) });
const UNFLUSHED = "set_config('synchronous_commit', 'off', true)";

describe("a select's commits: the attempt's opening unflushed, the answer flushed", () => {
  let system: LinksSystem;
  let db: RecordingDb;
  const merchant = randomUUID();
  let shopId: number;

  const depsFor = (provider: PaymentProvider): LinkDeps => ({
    links: new LinkRepository(db),
    unresolvedPayments: new UnresolvedPaymentRepository(db),
    idempotency: new IdempotencyRepository(db),
    shops: new ShopClient(system.bus),
    now: () => new Date(),
    newId: randomUUID,
    providers: new ProviderRegistry(sandbox, { sbp: provider, crypto: provider }),
    providerTimeoutMs: 1000,
    attempts: new AttemptRepository(db),
    warn: () => undefined,
    eventsTopic: system.topic,
  });

  /** Selects SBP on a new live link through `provider`; the statements the select ran, and the outcome. */
  const selectThrough = async (provider: PaymentProvider) => {
    const link = await system.createLink(apiKey(merchant), { shop_id: shopId });
    db.statements.length = 0;
    const selected = await selectMethod(depsFor(provider), platform, { id: link.id, method: 'sbp', network: null });
    return { link, selected, statements: [...db.statements] };
  };
  const attemptOf = (linkId: string) =>
    db.query<{ state: string; gateway_payment_id: string | null }>('SELECT state, gateway_payment_id FROM payment_attempts WHERE link_id = $1', [
      linkId,
    ]);

  beforeAll(async () => {
    system = await startLinksSystem('answercommit');
    shopId = await system.createShop(merchant);
    const url = (system.linksDb.pool.options as { connectionString: string }).connectionString;
    db = new RecordingDb({ url, schema: LINKS_SCHEMA, max: 1, log: pino({ level: 'silent' }) });
  });

  afterAll(async () => {
    await db?.close();
    await system?.stop();
  });

  it.each(['heleket', 'raiffeisen_sbp'] as const)(
    'opens a %s attempt with synchronous_commit off for its own statement and records the answer flushed',
    async (provider) => {
      const { link, selected, statements } = await selectThrough(new StandInProvider(provider, 'stand-in-secret'));
      expect(selected.link).toMatchObject({ gatewayProvider: provider, gatewayPaymentId: `sip_${link.id}-1` });
      await expect(attemptOf(link.id)).resolves.toEqual([{ state: 'pending', gateway_payment_id: `sip_${link.id}-1` }]);
      const opening = statements.find((s) => s.includes('INSERT INTO payment_attempts'));
      const answer = statements.find((s) => s.includes('shown AS'));
      expect(opening).toContain(UNFLUSHED);
      expect(answer).toBeDefined();
      expect(answer).not.toContain('synchronous_commit');
      // The setting was the opening's transaction's: the connection's next statement (the answer) commits flushed.
      await expect(db.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).resolves.toEqual([{ synchronous_commit: 'on' }]);
    },
  );
});
