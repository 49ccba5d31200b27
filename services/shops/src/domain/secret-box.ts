import { SecretBox as PurposeBox } from '@pl/config';

/** Binds every box to its purpose, so a box made for something else never opens here. */
const WEBHOOK_SECRET_PURPOSE = 'shops.webhook_secret.v1';

/** The box webhook signing secrets are stored in: `@pl/config`'s AES-256-GCM box, for webhook secrets. */
export class SecretBox extends PurposeBox {
  constructor(key: Buffer) {
    super(key, WEBHOOK_SECRET_PURPOSE);
  }

  /** A box from a base64 key as configuration carries it. */
  static fromBase64(key: string): SecretBox {
    return new SecretBox(Buffer.from(key, 'base64'));
  }
}
