import { createHash, randomUUID } from 'node:crypto';
import { subjects, type CreateLinkCommand, type Identity, type IdempotencyClaim, type IdempotentLinkReply } from '@pl/contracts';
import { DayPartitions } from '@pl/db';
import { eventually } from '@pl/testing';
import { idempotencyPartitions, IdempotencyRepository } from '../src/data/idempotency.repository';
import type { LinkRecord } from '../src/domain/link';
import { PARTITION_DAYS_AHEAD } from '../src/entry/background/partition-upkeep';
import { apiKey, cashier, startLinksSystem, type LinksSystem } from './support/links-system';
import { sampleNewLink } from '../src/domain/sample-link.fixture';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
/** A claim as the gateway sends it: the key's digest, the route, the fingerprint of what was asked. */
const claim = (key: string, asked = 'body-1', route = 'merchant-v1-create'): IdempotencyClaim => ({
  route,
  key_sha256: sha256(key),
  fingerprint: sha256(asked),
});
const CREATE: CreateLinkCommand = { amount_kopecks: 10000, order_id: null, description: null, expires_in_minutes: 1440, return_url: null };

describe('Idempotency-Keys kept by the links service', () => {
  let system: LinksSystem;
  let records: IdempotencyRepository;
  const merchant = randomUUID();
  let shopId: number;

  const createOnce = (idempotency: IdempotencyClaim, over: Partial<CreateLinkCommand> = {}, who: Identity = apiKey(merchant)) =>
    system.bus.request(subjects.linksCreateOnce, { ...CREATE, shop_id: shopId, ...over, idempotency }, who);
  const cancelOnce = (id: string, idempotency: IdempotencyClaim, who: Identity = apiKey(merchant)) =>
    system.bus.request(subjects.linksCancelOnce, { id, idempotency }, who);
  const linksWithOrder = async (orderId: string) =>
    (await system.linksDb.query<{ id: string }>('SELECT id FROM payment_links WHERE order_id = $1', [orderId])).map((r) => r.id);

  beforeAll(async () => {
    // 50 creates with one key queue on that key's lock, one transaction after another, ten connections at a time: on a
    // busy machine the last waits for a connection longer than the default 2 s.
    system = await startLinksSystem('linksidem', { DATABASE_POOL_WAIT_MS: '15000' });
    shopId = await system.createShop(merchant);
    records = new IdempotencyRepository(system.linksDb);
  });

  afterAll(async () => {
    await system?.stop();
  });

  describe('create', () => {
    it('creates once, then answers the same link as first answered, marked replayed', async () => {
      const key = claim('create-replay');
      const first = await createOnce(key, { order_id: 'create-replay' });
      const again = await createOnce(key, { order_id: 'create-replay' });
      expect(first.replayed).toBe(false);
      expect(again).toEqual({ link: first.link, replayed: true });
      expect(await linksWithOrder('create-replay')).toEqual([first.link.id]);
    });

    it('replays the link as first answered even after it moved', async () => {
      const key = claim('create-then-cancel');
      const first = await createOnce(key);
      await system.bus.request(subjects.linksCancel, { id: first.link.id }, apiKey(merchant));
      const again = await createOnce(key);
      expect(again.link).toEqual(first.link);
      expect(again.link.status).toBe('pending');
    });

    it('answers 409 idempotency_conflict to the same key with another body, and writes nothing', async () => {
      await createOnce(claim('create-conflict', 'body-a'), { order_id: 'create-conflict' });
      await expect(createOnce(claim('create-conflict', 'body-b'), { order_id: 'create-conflict', amount_kopecks: 1 })).rejects.toMatchObject({
        kind: 'conflict',
        code: 'common.err.idempotency_conflict',
      });
      expect(await linksWithOrder('create-conflict')).toHaveLength(1);
    });

    it('scopes keys by merchant, by the cashier key shop and by route', async () => {
      const otherMerchant = randomUUID();
      const otherShop = await system.createShop(otherMerchant);
      const secondShop = await system.createShop(merchant);
      const key = claim('create-scoped');
      const ids = [
        (await createOnce(key)).link.id,
        (await createOnce(key, { shop_id: otherShop }, apiKey(otherMerchant))).link.id,
        (await createOnce(key, { shop_id: shopId }, cashier(merchant, shopId))).link.id,
        (await createOnce(key, { shop_id: secondShop }, cashier(merchant, secondShop))).link.id,
        (await createOnce(claim('create-scoped', 'body-1', 'api-v1-create'))).link.id,
      ];
      expect(new Set(ids).size).toBe(5);
    });

    it('keeps nothing for a refused create, so its retry is judged anew', async () => {
      const unapproved = await system.createShop(merchant, { status: 'pending' });
      const key = claim('create-refused');
      await expect(createOnce(key, { shop_id: unapproved })).rejects.toMatchObject({ code: 'shop.err.not_approved' });
      expect(await records.find(`${merchant}:merchant-v1-create`, key.key_sha256)).toBeNull();
    });

    it('resolves 50 concurrent creates with one key to one link, all answering it', async () => {
      const key = claim('create-concurrent');
      const answers = await Promise.all(Array.from({ length: 50 }, () => createOnce(key, { order_id: 'create-concurrent' })));
      const ids = await linksWithOrder('create-concurrent');
      expect(ids).toHaveLength(1);
      expect(new Set(answers.map((a) => a.link.id))).toEqual(new Set(ids));
      expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    });
  });

  describe('cancel', () => {
    const newLink = async () => (await createOnce(claim(randomUUID()))).link;

    it('cancels once; a retry gets the first answer again instead of 409 not_pending', async () => {
      const link = await newLink();
      const key = claim('cancel-replay', link.id, 'merchant-v1-cancel');
      const first = await cancelOnce(link.id, key);
      const again = await cancelOnce(link.id, key);
      expect(first).toMatchObject({ replayed: false, link: { id: link.id, status: 'canceled' } });
      expect(again).toEqual({ link: first.link, replayed: true });
    });

    it('answers 409 idempotency_conflict to the same key on another link', async () => {
      const [a, b] = [await newLink(), await newLink()];
      await cancelOnce(a.id, claim('cancel-conflict', a.id, 'merchant-v1-cancel'));
      await expect(cancelOnce(b.id, claim('cancel-conflict', b.id, 'merchant-v1-cancel'))).rejects.toMatchObject({
        code: 'common.err.idempotency_conflict',
      });
      await expect(system.bus.request(subjects.linksGet, { id: b.id }, apiKey(merchant))).resolves.toMatchObject({ status: 'pending' });
    });

    it('keeps nothing for a refused cancel: a link already canceled without the key is 409 not_pending', async () => {
      const link = await newLink();
      await system.bus.request(subjects.linksCancel, { id: link.id }, apiKey(merchant));
      const key = claim('cancel-refused', link.id, 'merchant-v1-cancel');
      await expect(cancelOnce(link.id, key)).rejects.toMatchObject({ code: 'payment_link.err.not_pending' });
      await expect(cancelOnce(randomUUID(), claim('cancel-unknown', 'x', 'merchant-v1-cancel'))).rejects.toMatchObject({
        code: 'common.err.not_found',
      });
    });

    it('resolves 20 concurrent cancels with one key to one move, all answering it', async () => {
      const link = await newLink();
      const key = claim('cancel-concurrent', link.id, 'merchant-v1-cancel');
      const answers: IdempotentLinkReply[] = await Promise.all(Array.from({ length: 20 }, () => cancelOnce(link.id, key)));
      expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
      for (const a of answers) expect(a.link).toEqual(answers[0]?.link);
    });
  });

  describe('repository', () => {
    const scope = `${merchant}:repository`;

    it('reads a kept link back exactly as the insert returned it', async () => {
      const key = { scope, keySha256: sha256('repo-read'), fingerprint: sha256('x') };
      const inserted = await records.insertLink(sampleNewLink({ merchantId: merchant, shopId }), key);
      expect(await records.find(scope, key.keySha256)).toEqual({ fingerprint: key.fingerprint, link: inserted });
    });

    it('answers key_taken for a second insert with the key, and leaves no second link', async () => {
      const key = { scope, keySha256: sha256('repo-taken'), fingerprint: sha256('x') };
      await records.insertLink(sampleNewLink({ merchantId: merchant, shopId, orderId: 'repo-taken' }), key);
      await expect(records.insertLink(sampleNewLink({ merchantId: merchant, shopId, orderId: 'repo-taken' }), key)).resolves.toBe('key_taken');
      expect(await linksWithOrder('repo-taken')).toHaveLength(1);
    });

    /** A key's records, oldest first, with the day partition each is in. */
    const recordsOf = (keySha256: string) =>
      system.linksDb.query<{ part: string; link_id: string }>(
        'SELECT tableoid::regclass::text AS part, link_id FROM idempotency_keys WHERE key_sha256 = $1 ORDER BY created_at',
        [keySha256],
      );
    const partitionsOfKeys = async () =>
      (
        await system.linksDb.query<{ name: string }>(
          `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'idempotency_keys'::regclass ORDER BY 1`,
        )
      ).map((r) => r.name);
    const dayName = (at: Date) => `idempotency_keys_p${at.toISOString().slice(0, 10).replaceAll('-', '')}`;
    /** The last second of yesterday (UTC): a record there is in another partition than one written now. */
    const JUST_BEFORE_MIDNIGHT = `date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 second'`;

    it('answers for 24 hours: past them a record answers nothing, and the key makes a new link beside it', async () => {
      const old = { scope, keySha256: sha256('repo-old'), fingerprint: sha256('x') };
      const young = { scope, keySha256: sha256('repo-young'), fingerprint: sha256('x') };
      await records.insertLink(sampleNewLink({ merchantId: merchant, shopId }), old);
      await records.insertLink(sampleNewLink({ merchantId: merchant, shopId }), young);
      await system.linksDb.query(`UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE key_sha256 = $1`, [
        old.keySha256,
      ]);
      await system.linksDb.query(`UPDATE idempotency_keys SET created_at = now() - interval '23 hours 59 minutes' WHERE key_sha256 = $1`, [
        young.keySha256,
      ]);
      expect(await records.find(scope, old.keySha256)).toBeNull();
      expect(await records.find(scope, young.keySha256)).not.toBeNull();
      await expect(records.insertLink(sampleNewLink({ merchantId: merchant, shopId }), young)).resolves.toBe('key_taken');
      const again = await records.insertLink(sampleNewLink({ merchantId: merchant, shopId, orderId: 'repo-old-again' }), old);
      expect(again).toMatchObject({ orderId: 'repo-old-again' });
      expect(await records.find(scope, old.keySha256)).toMatchObject({ link: again });
      expect(await recordsOf(old.keySha256)).toHaveLength(2);
    });

    it('refuses a second record of a key kept in the day before: the rule crosses the partitions', async () => {
      const key = { scope, keySha256: sha256('repo-midnight'), fingerprint: sha256('x') };
      const first = await records.insertLink(sampleNewLink({ merchantId: merchant, shopId, orderId: 'repo-midnight' }), key);
      await system.linksDb.query(`UPDATE idempotency_keys SET created_at = ${JUST_BEFORE_MIDNIGHT} WHERE key_sha256 = $1`, [key.keySha256]);
      await expect(records.insertLink(sampleNewLink({ merchantId: merchant, shopId, orderId: 'repo-midnight' }), key)).resolves.toBe('key_taken');
      expect(await linksWithOrder('repo-midnight')).toHaveLength(1);
      expect(await records.find(scope, key.keySha256)).toMatchObject({ link: first });
      const [kept] = await recordsOf(key.keySha256);
      expect(kept?.part).not.toBe(dayName(new Date()));
    });

    /** Sessions of this database waiting for an advisory lock (the key's, in this test). */
    const waitingOnAdvisoryLock = async () =>
      (
        await system.linksDb.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
            WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()`,
        )
      )[0]?.n ?? 0;

    it('makes a request racing a first one still uncommitted in the day before wait for it, then refuses it', async () => {
      const key = { scope, keySha256: sha256('repo-race'), fingerprint: sha256('x') };
      const link = await records.insertLink(sampleNewLink({ merchantId: merchant, shopId, orderId: 'repo-race' }), {
        ...key,
        keySha256: sha256('repo-race-first'),
      });
      if (link === 'key_taken') throw new Error('a fresh key was taken');
      let second: Promise<LinkRecord | 'key_taken'> | null = null;
      await system.linksDb.transaction(async (client) => {
        await client.query(
          `INSERT INTO idempotency_keys (scope, key_sha256, fingerprint, link_id, response, created_at)
           VALUES ($1, $2, $3, $4, 'null'::json, ${JUST_BEFORE_MIDNIGHT})`,
          [key.scope, key.keySha256, key.fingerprint, link.id],
        );
        second = records.insertLink(sampleNewLink({ merchantId: merchant, shopId, orderId: 'repo-race' }), key);
        // The second waits on the key's lock while this transaction holds it (seen in pg_locks, not guessed).
        await eventually(async () => (await waitingOnAdvisoryLock()) > 0, 'the second insert waiting on the key', 10_000);
      });
      await expect(second).resolves.toBe('key_taken');
      // The first link (made with another key) is the only one: the racing insert left none behind.
      expect(await linksWithOrder('repo-race')).toEqual([link.id]);
    });

    it("is expired by dropping a day once all of it is past 24 hours; a younger day's records still answer", async () => {
      const now = new Date();
      const twoDaysAgo = new Date(now.getTime() - 2 * 86_400_000);
      const upkeep = (at: Date) => new DayPartitions(system.linksDb, [idempotencyPartitions], PARTITION_DAYS_AHEAD).upkeep(at);
      await upkeep(twoDaysAgo);
      expect(await partitionsOfKeys()).toContain(dayName(twoDaysAgo));
      const gone = { scope, keySha256: sha256('repo-two-days'), fingerprint: sha256('x') };
      const kept = { scope, keySha256: sha256('repo-an-hour'), fingerprint: sha256('x') };
      await records.insertLink(sampleNewLink({ merchantId: merchant, shopId }), gone);
      const keptLink = await records.insertLink(sampleNewLink({ merchantId: merchant, shopId }), kept);
      await system.linksDb.query(`UPDATE idempotency_keys SET created_at = $2 WHERE key_sha256 = $1`, [gone.keySha256, twoDaysAgo]);
      await system.linksDb.query(`UPDATE idempotency_keys SET created_at = now() - interval '1 hour' WHERE key_sha256 = $1`, [kept.keySha256]);
      expect((await recordsOf(gone.keySha256))[0]?.part).toBe(dayName(twoDaysAgo));

      // Two replicas at once: one drops the day, the other leaves it (or finds it gone); neither fails.
      await Promise.all([upkeep(now), upkeep(now)]);
      const left = await partitionsOfKeys();
      expect(left).not.toContain(dayName(twoDaysAgo));
      expect(left).toContain(dayName(new Date(now.getTime() - 86_400_000)));
      expect(left).toContain(dayName(new Date(now.getTime() + PARTITION_DAYS_AHEAD * 86_400_000)));
      expect(await recordsOf(gone.keySha256)).toEqual([]);
      expect(await records.find(scope, kept.keySha256)).toEqual({ fingerprint: kept.fingerprint, link: keptLink });
    });
  });
});
