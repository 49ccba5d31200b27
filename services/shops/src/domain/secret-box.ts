import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { internal } from '@pl/errors';

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** Binds every box to its purpose, so a box made for something else never opens here. */
const AAD = Buffer.from('shops.webhook_secret.v1', 'utf8');

/**
 * Seals short secrets (webhook signing secrets) with AES-256-GCM for storage. A box is
 * `version (1 byte) | nonce (12) | ciphertext | tag (16)`; the version byte leaves room to rotate
 * the algorithm or key later without guessing what a stored box is.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`secret box key must be ${KEY_BYTES} bytes`);
    this.key = Buffer.from(key);
  }

  /** A box from a base64 key as configuration carries it. */
  static fromBase64(key: string): SecretBox {
    return new SecretBox(Buffer.from(key, 'base64'));
  }

  seal(plaintext: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(AAD);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), nonce, body, cipher.getAuthTag()]);
  }

  /** The plaintext of a box sealed with this key; a tampered box or another key is an internal error. */
  open(box: Buffer): string {
    if (box.length < 1 + NONCE_BYTES + TAG_BYTES || box[0] !== VERSION) throw cannotOpen();
    const nonce = box.subarray(1, 1 + NONCE_BYTES);
    const body = box.subarray(1 + NONCE_BYTES, box.length - TAG_BYTES);
    const tag = box.subarray(box.length - TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, nonce, { authTagLength: TAG_BYTES });
      decipher.setAAD(AAD);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw cannotOpen();
    }
  }
}

const cannotOpen = () => internal('Stored secret cannot be decrypted (tampered, or sealed with another key)');
