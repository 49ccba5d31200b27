import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed, including non-ASCII text', () => {
    for (const secret of ['whsec_abc', '', 'секрет-🔑'.repeat(20)]) {
      expect(box.open(box.seal(secret))).toBe(secret);
    }
  });

  it('seals the same text differently every time (fresh nonce)', () => {
    expect(box.seal('same').equals(box.seal('same'))).toBe(false);
  });

  it('refuses a box with any single byte flipped', () => {
    const sealed = box.seal('webhook-secret');
    for (let i = 0; i < sealed.length; i += 1) {
      const tampered = Buffer.from(sealed);
      tampered[i] = (tampered[i] ?? 0) ^ 0x01;
      expect(() => box.open(tampered)).toThrow(/cannot be decrypted/);
    }
  });

  it('refuses a truncated box', () => {
    expect(() => box.open(box.seal('x').subarray(0, 20))).toThrow(/cannot be decrypted/);
  });

  it('refuses to open a box sealed with another key', () => {
    const other = new SecretBox(randomBytes(32));
    expect(() => other.open(box.seal('webhook-secret'))).toThrow(/cannot be decrypted/);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow(/32 bytes/);
    expect(() => SecretBox.fromBase64('c2hvcnQ=')).toThrow(/32 bytes/);
  });
});
