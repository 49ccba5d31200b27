import type { WireError } from '@pl/errors';

/** What a NATS responder sends back: the contract's response, or a domain error. */
export type ReplyEnvelope<T> = { ok: true; data: T } | { ok: false; error: WireError };

export const IDENTITY_HEADER = 'Identity-Token';
export const REQUEST_ID_HEADER = 'Request-Id';

export const subjectName = (namespace: string, name: string): string => `${namespace}.${name}`;
