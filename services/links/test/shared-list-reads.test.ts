import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { QueryResultRow } from 'pg';
import { Db } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { LINKS_SCHEMA, migrateLinks } from '../src/data/migrate';
import { LinkRepository } from '../src/data/link.repository';
import type { LinkListQuery } from '../src/domain/ports';
import { sampleNewLink } from '../src/domain/sample-link.fixture';

jest.setTimeout(30_000);

const isListStatement = (sql: string): boolean => sql.includes('payment_link_json(');

/** Real Postgres; a list statement's rows can be held back after they were read, to keep that read "in flight". */
class HoldingDb extends Db {
  listStatements = 0;
  private held: { rowsRead: () => void; release: Promise<void> } | null = null;

  /** Holds the next list statement once Postgres answered it; resolves then, with the function that lets it go. */
  holdNextList(): Promise<() => void> {
    return new Promise((rowsRead) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      this.held = { rowsRead: () => rowsRead(release), release: released };
    });
  }

  override async query<R extends QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    const rows = await super.query<R>(sql, params);
    if (isListStatement(sql)) {
      this.listStatements += 1;
      const held = this.held;
      this.held = null;
      if (held) {
        held.rowsRead();
        await held.release;
      }
    }
    return rows;
  }
}

/** Identical list reads share a statement, and none is given rows read before its request. */
describe('shared list reads', () => {
  const log = pino({ level: 'silent' });
  const base = 'https://pay.example';
  let database: TestDatabase;
  let db: HoldingDb;
  let links: LinkRepository;

  const firstPage = (merchantId: string): LinkListQuery => ({
    scope: { merchantId, mode: 'live' },
    status: null,
    shopId: null,
    orderId: null,
    after: null,
    limit: 21,
  });
  const ids = async (page: Promise<readonly { id: string }[]>): Promise<string[]> => (await page).map((l) => l.id);

  beforeAll(async () => {
    database = await createTestDatabase('sharedlists');
    await migrateLinks(database.url, log);
    db = new HoldingDb({ url: database.url, schema: LINKS_SCHEMA, log, prepare: true, max: 4 });
    links = new LinkRepository(db);
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('gives the lists asked for while one is in flight a later read, shared by all of them, that sees what was committed meanwhile', async () => {
    const merchantId = randomUUID();
    const older = await links.insert(sampleNewLink({ merchantId }));
    const before = db.listStatements;

    const holding = db.holdNextList();
    const inFlight = ids(links.list(firstPage(merchantId), base));
    const release = await holding;
    // Committed while the first read is in flight, before the next two lists are asked for: both must see it.
    const newer = await links.insert(sampleNewLink({ merchantId }));
    const later = [ids(links.list(firstPage(merchantId), base)), ids(links.list(firstPage(merchantId), base))];
    release();

    expect(await inFlight).toEqual([older.id]);
    expect(await Promise.all(later)).toEqual([
      [newer.id, older.id],
      [newer.id, older.id],
    ]);
    expect(db.listStatements - before).toBe(2);
  });

  it('never makes a list of another page wait for, or take, the read in flight', async () => {
    const merchantId = randomUUID();
    const other = randomUUID();
    const mine = await links.insert(sampleNewLink({ merchantId }));
    const theirs = await links.insert(sampleNewLink({ merchantId: other }));

    const holding = db.holdNextList();
    const inFlight = ids(links.list(firstPage(merchantId), base));
    const release = await holding;
    // Each is read at once, while the held read still is in flight: were one queued behind it, this would never end.
    const pages = await Promise.all([
      links.list(firstPage(other), base),
      links.list({ ...firstPage(merchantId), limit: 1 }, base),
      links.list({ ...firstPage(merchantId), scope: { merchantId, mode: 'test' } }, base),
      links.list(firstPage(merchantId), 'https://other.example'),
    ]);
    release();

    expect(await inFlight).toEqual([mine.id]);
    expect(pages.map((page) => page.map((l) => l.id))).toEqual([[theirs.id], [mine.id], [], [mine.id]]);
    expect(JSON.parse(pages[3][0]!.json)).toMatchObject({ checkout_url: `https://other.example/p/${mine.id}` });
  });
});
