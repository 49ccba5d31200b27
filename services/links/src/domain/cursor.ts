import { cursorBigint, cursorCodec, cursorUuid } from '@pl/contracts';

/** A position in the list's (created_at desc, id desc) order. */
export interface LinkCursor {
  createdAtMicros: bigint;
  id: string;
}

/** Opaque to clients: base64url of `v1:<created_at micros>:<id>`; anything this service did not produce is 400. */
const linkCursor = cursorCodec<LinkCursor>({ createdAtMicros: cursorBigint(18), id: cursorUuid });

export const encodeCursor = linkCursor.encode;
export const decodeCursor = linkCursor.decode;
