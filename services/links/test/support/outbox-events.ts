import { platformEvent, type PlatformEvent } from '@pl/contracts';
import type { Db } from '@pl/db';

/** An event as the outbox holds it: the payload parsed by its contract, and the row's key and headers. */
export interface OutboxEvent {
  id: string;
  key: string;
  headers: Record<string, string>;
  event: PlatformEvent;
}

/** Every event the outbox holds for `linkId` (its Kafka key), oldest first, each checked against the contract. */
export async function outboxEventsOf(db: Db, linkId: string): Promise<OutboxEvent[]> {
  const rows = await db.query<{ id: string; message_key: string; headers: Record<string, string>; payload: unknown }>(
    'SELECT id, message_key, headers, payload FROM outbox WHERE message_key = $1 ORDER BY created_at, id',
    [linkId],
  );
  return rows.map((r) => ({ id: r.id, key: r.message_key, headers: r.headers, event: platformEvent.parse(r.payload) }));
}

/** The types of `linkId`'s events, oldest first: what "exactly one event per move" is checked against. */
export const eventTypesOf = async (db: Db, linkId: string): Promise<string[]> => (await outboxEventsOf(db, linkId)).map((e) => e.event.event);
