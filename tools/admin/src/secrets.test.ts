import { AppError } from '@pl/errors';
import { withSecret, type CliIo, type SecretSource } from './secrets';

const PASSWORD: SecretSource = { flag: 'password', stdinFlag: 'password-stdin', envName: 'ADMIN_MERCHANT_PASSWORD' };
const WEBHOOK: SecretSource = {
  flag: 'webhook-secret',
  stdinFlag: 'webhook-secret-stdin',
  envName: 'ADMIN_WEBHOOK_SECRET',
  envFlag: 'webhook-secret-from-env',
};

const io = (stdin = '') => {
  const warnings: string[] = [];
  let reads = 0;
  const value: CliIo = {
    readStdin: () => {
      reads += 1;
      return Promise.resolve(stdin);
    },
    warn: (m) => warnings.push(m),
  };
  return { value, warnings, reads: () => reads };
};

const problemOf = async (p: Promise<unknown>): Promise<AppError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a validation error');
};

describe('withSecret', () => {
  it('reads stdin without its one final newline (CRLF too) into the flag, dropping --password-stdin', async () => {
    for (const [input, secret] of [
      ['pw-from-pipe\n', 'pw-from-pipe'],
      ['pw-from-file\r\n', 'pw-from-file'],
      ['two\n\n', 'two\n'],
      ['  spaced  ', '  spaced  '],
    ]) {
      const t = io(input);
      await expect(withSecret({ email: 'e', 'password-stdin': true }, PASSWORD, {}, t.value)).resolves.toEqual({ email: 'e', password: secret });
      expect(t.warnings).toEqual([]);
    }
  });

  it('takes the variable when no flag gives the password, a flag before the variable, and reads stdin only when asked', async () => {
    const t = io('from-stdin');
    await expect(withSecret({}, PASSWORD, { ADMIN_MERCHANT_PASSWORD: 'from-env' }, t.value)).resolves.toEqual({ password: 'from-env' });
    await expect(withSecret({ 'password-stdin': true }, PASSWORD, { ADMIN_MERCHANT_PASSWORD: 'from-env' }, t.value)).resolves.toEqual({
      password: 'from-stdin',
    });
    expect(t.reads()).toBe(1);
    await expect(withSecret({ email: 'e' }, PASSWORD, {}, t.value)).resolves.toEqual({ email: 'e' });
  });

  it('warns, naming the better ways, when the secret is on the command line; the warning never holds the secret', async () => {
    const t = io();
    await expect(withSecret({ password: 'on-argv-123' }, PASSWORD, {}, t.value)).resolves.toEqual({ password: 'on-argv-123' });
    expect(t.warnings).toEqual([expect.stringMatching(/^warning: --password .*--password-stdin or ADMIN_MERCHANT_PASSWORD/)]);
    expect(t.warnings.join('')).not.toContain('on-argv-123');
  });

  it('lets an empty value on the command line through without a warning (it clears a webhook secret)', async () => {
    const t = io();
    await expect(withSecret({ 'webhook-secret': '' }, WEBHOOK, {}, t.value)).resolves.toEqual({ 'webhook-secret': '' });
    expect(t.warnings).toEqual([]);
  });

  it('reads the webhook variable only with --webhook-secret-from-env', async () => {
    const env = { ADMIN_WEBHOOK_SECRET: 'whsec' };
    await expect(withSecret({ name: 'n' }, WEBHOOK, env, io().value)).resolves.toEqual({ name: 'n' });
    await expect(withSecret({ 'webhook-secret-from-env': true }, WEBHOOK, env, io().value)).resolves.toEqual({ 'webhook-secret': 'whsec' });
    const unset = await problemOf(withSecret({ 'webhook-secret-from-env': true }, WEBHOOK, {}, io().value));
    expect(unset.message).toBe('--webhook-secret: --webhook-secret-from-env needs ADMIN_WEBHOOK_SECRET to be set');
  });

  it.each([
    ['two ways', { password: 'x', 'password-stdin': true }, {}, 'pw', 'give it one way only, not --password and --password-stdin'],
    ['an empty stdin', { 'password-stdin': true }, {}, '\n', 'standard input (--password-stdin) is empty'],
    ['an empty variable', {}, { ADMIN_MERCHANT_PASSWORD: '' }, '', 'ADMIN_MERCHANT_PASSWORD is empty'],
  ])('refuses %s as a validation error on the flag', async (_name, values, env, stdin, message) => {
    const error = await problemOf(withSecret(values, PASSWORD, env, io(stdin).value));
    expect(error.code).toBe('common.err.validation_failed');
    expect(error.details).toEqual([{ field: 'password', code: expect.any(String), message }]);
  });
});
