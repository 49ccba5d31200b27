import { WriteBatcher, type Db } from '@pl/db';
import { isLinksOwnMode, type ModeReach } from '../domain/ports';
import { COLUMNS, type LinkRow } from './link.row';

/** At most this many ids go in one statement. */
const MAX_BATCH = 200;

const BATCH_TEXT = `SELECT ${COLUMNS} FROM payment_links WHERE id = ANY($1::uuid[])`;

/** What Postgres reads as a uuid: anything else would fail the whole batch's cast, and names no link anyway. */
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * Reads of single links by id, grouped like the creates (LinkInserts): the reads that arrive while one is in
 * flight go in the next statement together, a lone read goes at once. One round trip serves many gets, which
 * is most of what a get cost the database and this service. A read is never older than its request: it
 * waits for the statement that starts after it arrived.
 */
export class LinkLookups {
  private readonly batcher = new WriteBatcher<string, Map<string, LinkRow>>((ids) => this.read(ids), MAX_BATCH);

  constructor(private readonly db: Db) {}

  /** The link, when it exists within `reach` (the other mode's link answers as if it did not exist). */
  async find(id: string, reach: ModeReach): Promise<LinkRow | null> {
    if (!UUID.test(id)) return null;
    const row = (await this.batcher.add(id)).get(id);
    if (!row) return null;
    return isLinksOwnMode(reach) || row.livemode === (reach.mode === 'live') ? row : null;
  }

  private async read(ids: string[]): Promise<Map<string, LinkRow>[]> {
    const rows = await this.db.query<LinkRow>(BATCH_TEXT, [[...new Set(ids)]]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map(() => byId);
  }
}
