import { createHash, timingSafeEqual } from 'node:crypto';

/** Heleket's signature of a body: lowercase hex md5 of (base64 of the body's UTF-8 bytes, then the key). */
export function heleketSign(body: string, key: string): string {
  return createHash('md5')
    .update(Buffer.from(body, 'utf8').toString('base64') + key, 'utf8')
    .digest('hex');
}

const MD5_HEX = /^[0-9a-fA-F]{32}$/;

/** Whether `given` is the signature of `body` under `key`, compared in constant time. */
export function signatureMatches(body: string, key: string, given: string): boolean {
  if (!MD5_HEX.test(given)) return false;
  return timingSafeEqual(Buffer.from(heleketSign(body, key), 'hex'), Buffer.from(given, 'hex'));
}
