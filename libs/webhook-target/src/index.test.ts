import { assertWebhookTarget, isBlockedAddress, type ResolveHost } from './index';

const resolvesTo =
  (...addresses: string[]): ResolveHost =>
  async () =>
    addresses;
const strict = (resolve: ResolveHost = resolvesTo('93.184.216.34')) => ({ allowPrivateTargets: false, resolve });

describe('isBlockedAddress', () => {
  it.each([
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.0.9',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    'not-an-ip',
  ])('blocks %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'lets public %s through',
    (address) => {
      expect(isBlockedAddress(address)).toBe(false);
    },
  );
});

describe('assertWebhookTarget', () => {
  it('accepts a public https URL and returns it normalized', async () => {
    await expect(assertWebhookTarget('HTTPS://Example.COM/hook', strict())).resolves.toBe('https://example.com/hook');
  });

  it.each(['ftp://example.com/x', 'javascript:alert(1)', 'file:///etc/passwd', 'example.com/hook', ''])(
    'rejects %j as not an http(s) URL',
    async (url) => {
      await expect(assertWebhookTarget(url, strict())).rejects.toMatchObject({ code: 'common.err.validation_failed' });
    },
  );

  it('rejects a URL with credentials', async () => {
    await expect(assertWebhookTarget('https://u:p@example.com/', strict())).rejects.toMatchObject({ kind: 'validation' });
  });

  it.each([
    'http://127.0.0.1/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://[::1]:8080/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[fe80::1]/',
    'http://0.0.0.0/',
  ])('rejects the private literal target %s', async (url) => {
    await expect(assertWebhookTarget(url, strict())).rejects.toMatchObject({ kind: 'validation' });
  });

  it('rejects a host name when any of its addresses is private', async () => {
    const policy = strict(resolvesTo('93.184.216.34', '10.0.0.5'));
    await expect(assertWebhookTarget('https://mixed.example/hook', policy)).rejects.toThrow(/private/);
  });

  it('rejects a host name that does not resolve', async () => {
    const failing: ResolveHost = async () => {
      throw new Error('ENOTFOUND');
    };
    await expect(assertWebhookTarget('https://nowhere.invalid/', strict(failing))).rejects.toThrow(/does not resolve/);
  });

  it('rejects localhost through real DNS resolution', async () => {
    await expect(assertWebhookTarget('http://localhost:3000/hook', { allowPrivateTargets: false })).rejects.toMatchObject({
      kind: 'validation',
    });
  });

  it('lets private targets through when the deployment allows them, but still checks the scheme', async () => {
    const open = { allowPrivateTargets: true };
    await expect(assertWebhookTarget('http://127.0.0.1:9999/hook', open)).resolves.toBe('http://127.0.0.1:9999/hook');
    await expect(assertWebhookTarget('ftp://127.0.0.1/', open)).rejects.toMatchObject({ kind: 'validation' });
  });
});
