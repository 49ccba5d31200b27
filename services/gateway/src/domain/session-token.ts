import { createHash, randomBytes } from 'node:crypto';

const TOKEN_BYTES = 32;
/** 32 bytes in unpadded base64url are always 43 characters. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** An opaque, unguessable session token (256 random bits); never a JWT. */
export const newSessionToken = (): string => randomBytes(TOKEN_BYTES).toString('base64url');

/** True when the text could be a token we issued; anything else is refused without a lookup. */
export const looksLikeSessionToken = (text: string): boolean => TOKEN_SHAPE.test(text);

/**
 * What the store is keyed by: a SHA-256 of the token, so a leaked Redis dump or key listing
 * gives nobody a usable session.
 */
export const sessionTokenDigest = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
