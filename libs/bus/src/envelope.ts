import type { WireError } from '@pl/errors';

/** What a NATS responder sends back: the contract's response, or a domain error. */
export type ReplyEnvelope<T> = { ok: true; data: T } | { ok: false; error: WireError };

export const IDENTITY_HEADER = 'Identity-Token';
export const REQUEST_ID_HEADER = 'Request-Id';

export const subjectName = (namespace: string, name: string): string => `${namespace}.${name}`;

/**
 * The start of a successful reply as `JSON.stringify({ ok: true, data })` writes it. Responders write it
 * themselves around the serialized data, so a client can take the data's JSON out without parsing it.
 */
const OK_PREFIX = '{"ok":true,"data":';

/**
 * A reply's data already written as JSON, standing for a `T` (a list page whose links Postgres wrote): sent as
 * it is instead of being built as objects only to be serialized. Whoever makes one keeps the contract of `T`.
 */
export class JsonText<T> {
  declare readonly stands_for?: T;
  constructor(readonly text: string) {}
}

/**
 * A successful reply: the bytes `JSON.stringify({ ok: true, data })` gives (undefined data goes as null), without an
 * intermediate object; {@link JsonText} data goes in as written.
 */
export const okReplyText = (data: unknown): string => `${OK_PREFIX}${data instanceof JsonText ? data.text : JSON.stringify(data ?? null)}}`;

/** A reply as a responder sends it: the UTF-8 bytes of the envelope (a successful one as {@link okReplyText} writes it). */
export const replyBytes = (reply: ReplyEnvelope<unknown>): Buffer => Buffer.from(reply.ok ? okReplyText(reply.data) : JSON.stringify(reply), 'utf8');

/** NATS's own default `max_payload` (1 MiB): the limit until a server has said otherwise. */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/**
 * The largest message the connected NATS server accepts, as it announced in its INFO (it may differ after a
 * reconnect to another server), or {@link DEFAULT_MAX_PAYLOAD} before any.
 */
export const maxPayloadOf = (nc: { readonly info?: { max_payload: number } | undefined }): number => nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;

const OK_PREFIX_BYTES = Buffer.from(OK_PREFIX, 'utf8');
const CLOSING_BRACE = 0x7d;

/**
 * The data's JSON of a successful reply written by {@link okReplyText}, as a view of the reply's own bytes
 * (nothing decoded or copied), or null for any other reply.
 */
export function okReplyData(reply: Buffer): Buffer | null {
  const isOk =
    reply.length > OK_PREFIX_BYTES.length &&
    reply[reply.length - 1] === CLOSING_BRACE &&
    reply.subarray(0, OK_PREFIX_BYTES.length).equals(OK_PREFIX_BYTES);
  return isOk ? reply.subarray(OK_PREFIX_BYTES.length, reply.length - 1) : null;
}
