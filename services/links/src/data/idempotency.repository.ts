import { PAYMENT_EVENTS_TOPIC } from '@pl/contracts';
import type { DayPartitionedTable, Db } from '@pl/db';
import type { LinkRecord, NewLink, OutboxEntry } from '../domain/link';
import type { IdempotencyKeyRef, IdempotencyRecords, KeptAnswer, LinkScope } from '../domain/ports';
import { insertLinkStatement, moveWithEvents, transitionStatement, type MoveEvents } from './link.repository';
import type { Statement } from './statement';
import { COLUMNS, toRecord, type LinkRow } from './link.row';

/**
 * The name a second live record of a key is refused under (SQLSTATE 23505): the table's trigger keeps that rule
 * across its day partitions (migration 20261128120000100).
 */
const KEY_CONSTRAINT = 'idempotency_keys_pkey';

type KeptRow = Omit<LinkRow, 'livemode'> & { livemode: boolean | null; fingerprint: string };

/** Postgres refused a second record for a key (after the first one's transaction committed). */
const isKeyTaken = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505' && (e as { constraint?: unknown }).constraint === KEY_CONSTRAINT;

/**
 * `write` (a statement returning one payment_links row) and the key's record, in one statement: both commit
 * or neither. The record keeps the row as it was written: the answer a replay repeats.
 */
function withKeyRecord(write: Statement, key: IdempotencyKeyRef): Statement {
  const n = write.params.length;
  return {
    text: `WITH link AS (${write.text}),
       kept AS (INSERT INTO idempotency_keys (scope, key_sha256, fingerprint, link_id, response)
                SELECT $${n + 1}, $${n + 2}, $${n + 3}, id, row_to_json(link) FROM link)
       SELECT * FROM link`,
    params: [...write.params, key.scope, key.keySha256, key.fingerprint],
  };
}

/**
 * Idempotency-Key records in the `links` schema (table idempotency_keys). A record answers for its 24 hours
 * (`idempotency_key_ttl()`), then no longer counts; its day partition is dropped once all of it is that old
 * (`idempotencyPartitions`).
 */
export class IdempotencyRepository implements IdempotencyRecords {
  private readonly events: MoveEvents;

  /** As {@link LinkRepository}'s: where a keyed cancel's event goes, and who is told once it committed. */
  constructor(
    private readonly db: Db,
    onEventWritten: (entry: OutboxEntry) => void = () => undefined,
    eventsTopic: string = PAYMENT_EVENTS_TOPIC,
  ) {
    this.events = { topic: eventsTopic, onEventWritten };
  }

  async find(scope: string, keySha256: string): Promise<KeptAnswer | null> {
    // The kept row goes back through the payment_links row type, so it reads exactly as a stored link does.
    const rows = await this.db.query<KeptRow>(
      `SELECT k.fingerprint, l.*
         FROM idempotency_keys k
         CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM json_populate_record(NULL::payment_links, k.response)) l
        WHERE k.scope = $1 AND k.key_sha256 = $2 AND k.created_at > now() - idempotency_key_ttl()`,
      [scope, keySha256],
    );
    const row = rows[0];
    // An answer kept before links had a mode has no livemode: every link was live then.
    return row ? { fingerprint: row.fingerprint, link: toRecord({ ...row, livemode: row.livemode ?? true }) } : null;
  }

  async insertLink(link: NewLink, key: IdempotencyKeyRef): Promise<LinkRecord | 'key_taken'> {
    const written = await keyTakenAs(async () => {
      const rows = await this.db.query<LinkRow>(...asArgs(withKeyRecord(insertLinkStatement(link), key)));
      return rows[0] ? toRecord(rows[0]) : null;
    });
    // An INSERT ... RETURNING that did not fail returned its row.
    if (written === null) throw new Error('link insert returned no row');
    return written;
  }

  /** The cancel, the key's record and the `payment_link.canceled` event commit together, or none does. */
  cancel(id: string, scope: LinkScope, key: IdempotencyKeyRef): Promise<LinkRecord | 'key_taken' | null> {
    return keyTakenAs(async () => {
      const [canceled] = await moveWithEvents(this.db, withKeyRecord(transitionStatement(id, 'canceled', scope), key), this.events);
      return canceled ?? null;
    });
  }
}

/**
 * The records' day partitions: a day goes once its end is a day old, when every record in it is past its 24 hours
 * (so the oldest record kept is under 48 hours old).
 */
export const idempotencyPartitions: DayPartitionedTable = { table: 'idempotency_keys', retentionDays: 1 };

const asArgs = (statement: Statement): [string, unknown[]] => [statement.text, statement.params];

/** A write whose key another request holds answers `key_taken` instead of failing. */
async function keyTakenAs(write: () => Promise<LinkRecord | null>): Promise<LinkRecord | 'key_taken' | null> {
  try {
    return await write();
  } catch (e) {
    if (isKeyTaken(e)) return 'key_taken';
    throw e;
  }
}
