import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { z } from 'zod';

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** A key setting for a {@link SecretBox}: 32 bytes, base64; `fallback` is a development default production refuses. */
export const secretBoxKey = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === KEY_BYTES, {
      message: 'must be 32 bytes, base64',
    });

/**
 * Seals short secrets (webhook signing secrets, TOTP secrets) with AES-256-GCM for storage. A box is
 * `version (1 byte) | nonce (12) | ciphertext | tag (16)`; the version byte leaves room to rotate the algorithm or key
 * later without guessing what a stored box is. `purpose` is bound to every box as associated data, so a box made for
 * one purpose never opens as another's, even under the same key.
 */
export class SecretBox {
  private readonly key: Buffer;
  private readonly aad: Buffer;

  constructor(key: Buffer, purpose: string) {
    if (key.length !== KEY_BYTES) throw new Error(`secret box key must be ${KEY_BYTES} bytes`);
    this.key = Buffer.from(key);
    this.aad = Buffer.from(purpose, 'utf8');
  }

  seal(plaintext: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(this.aad);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), nonce, body, cipher.getAuthTag()]);
  }

  /** The plaintext of a box sealed with this key and purpose; a tampered box, another key or purpose throws. */
  open(box: Buffer): string {
    if (box.length < 1 + NONCE_BYTES + TAG_BYTES || box[0] !== VERSION) throw cannotOpen();
    const nonce = box.subarray(1, 1 + NONCE_BYTES);
    const body = box.subarray(1 + NONCE_BYTES, box.length - TAG_BYTES);
    const tag = box.subarray(box.length - TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, nonce, { authTagLength: TAG_BYTES });
      decipher.setAAD(this.aad);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw cannotOpen();
    }
  }
}

const cannotOpen = () => new Error('Stored secret cannot be decrypted (tampered, or sealed with another key or for another purpose)');
