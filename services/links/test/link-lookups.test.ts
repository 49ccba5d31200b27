import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Db } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { LINKS_SCHEMA, migrateLinks } from '../src/data/migrate';
import { insertLinkStatement } from '../src/data/link.repository';
import { LinkLookups } from '../src/data/link-lookups';
import { LINKS_OWN_MODE } from '../src/domain/ports';
import { sampleNewLink } from '../src/domain/sample-link.fixture';

jest.setTimeout(30_000);

/** Reads of one link by id, grouped: each read still answers for its own id and its own mode. */
describe('LinkLookups', () => {
  const log = pino({ level: 'silent' });
  let database: TestDatabase;
  let db: Db;
  const live = sampleNewLink({ livemode: true });
  const test = sampleNewLink({ livemode: false });

  beforeAll(async () => {
    database = await createTestDatabase('linklookups');
    await migrateLinks(database.url, log);
    db = new Db({ url: database.url, schema: LINKS_SCHEMA, log, prepare: true, max: 4 });
    for (const link of [live, test]) {
      const insert = insertLinkStatement(link);
      await db.query(insert.text, insert.params);
    }
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('answers reads made together each for its own id and mode; a malformed id is not found and fails no other', async () => {
    const lookups = new LinkLookups(db);

    const found = await Promise.all([
      lookups.find(live.id, { mode: 'live' }),
      lookups.find(live.id, { mode: 'test' }),
      lookups.find(test.id, { mode: 'test' }),
      lookups.find(test.id, LINKS_OWN_MODE),
      lookups.find(randomUUID(), { mode: 'live' }),
      lookups.find('not-a-uuid', { mode: 'live' }),
      lookups.find(live.id, LINKS_OWN_MODE),
    ]);

    expect(found.map((r) => r?.id ?? null)).toEqual([live.id, null, test.id, test.id, null, null, live.id]);
  });

  it('reads what was committed before the read was asked for', async () => {
    const lookups = new LinkLookups(db);
    const later = sampleNewLink();
    expect(await lookups.find(later.id, { mode: 'live' })).toBeNull();

    const insert = insertLinkStatement(later);
    await db.query(insert.text, insert.params);

    expect((await lookups.find(later.id, { mode: 'live' }))?.id).toBe(later.id);
  });
});
