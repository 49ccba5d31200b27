import { invalidField } from '@pl/errors';

/** A position in the list's (created_at desc, id desc) order. */
export interface LinkCursor {
  createdAtMicros: bigint;
  id: string;
}

const VERSION = 'v1';
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const BODY = /^v1:(0|[1-9][0-9]{0,17}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** Opaque to clients: base64url of `v1:<created_at micros>:<id>`. */
export function encodeCursor(cursor: LinkCursor): string {
  return Buffer.from(`${VERSION}:${cursor.createdAtMicros.toString()}:${cursor.id}`, 'utf8').toString('base64url');
}

/** The position a cursor names; anything this service did not produce is 400. */
export function decodeCursor(text: string): LinkCursor {
  const malformed = () => invalidField('cursor', 'is malformed');
  if (!BASE64URL.test(text)) throw malformed();
  const decoded = Buffer.from(text, 'base64url');
  // Node's decoder skips junk silently; re-encoding must give the input back for it to be ours.
  if (decoded.toString('base64url') !== text) throw malformed();
  const m = BODY.exec(decoded.toString('utf8'));
  if (!m?.[1] || !m[2]) throw malformed();
  return { createdAtMicros: BigInt(m[1]), id: m[2] };
}
