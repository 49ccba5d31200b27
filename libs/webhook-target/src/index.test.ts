import { assertWebhookTarget, isBlockedAddress, type ResolveHost } from './index';

const resolvesTo =
  (...addresses: string[]): ResolveHost =>
  async () =>
    addresses;
const strict = (resolve: ResolveHost = resolvesTo('93.184.216.34')) => ({ allowPrivateTargets: false, resolve });

/**
 * Every spelling of a non-public target, as a merchant would register it: the same entry point (and so the
 * same WHATWG URL parsing) as registration, with the host checked as an IP literal.
 */
const REFUSED_TARGETS: [string, string][] = [
  ['loopback', 'http://127.0.0.1/'],
  ['loopback, decimal', 'http://2130706433/'],
  ['loopback, octal', 'http://0177.0.0.1/'],
  ['loopback, hex', 'http://0x7f.0.0.1/'],
  ['loopback, hex whole', 'http://0x7f000001/'],
  ['loopback, short', 'http://127.1/'],
  ['loopback, trailing dot', 'http://127.0.0.1./'],
  ['loopback, elsewhere in 127/8', 'http://127.255.0.9/'],
  ['this network', 'http://0.0.0.0/'],
  ['this network, short', 'http://0/'],
  ['private 10/8', 'http://10.1.2.3/'],
  ['private 172.16/12', 'http://172.31.255.255/'],
  ['private 192.168/16', 'http://192.168.1.1/'],
  ['CGNAT 100.64/10', 'http://100.64.0.1/'],
  ['CGNAT, top of the range', 'http://100.127.255.254/'],
  ['link-local', 'http://169.254.1.1/'],
  ['cloud metadata', 'http://169.254.169.254/latest/meta-data'],
  ['IETF protocol assignments', 'http://192.0.0.8/'],
  ['documentation TEST-NET-1', 'http://192.0.2.1/'],
  ['documentation TEST-NET-2', 'http://198.51.100.7/'],
  ['documentation TEST-NET-3', 'http://203.0.113.9/'],
  ['benchmarking', 'http://198.18.0.1/'],
  ['multicast', 'http://224.0.0.1/'],
  ['reserved 240/4', 'http://240.0.0.1/'],
  ['broadcast', 'http://255.255.255.255/'],
  ['IPv6 unspecified', 'http://[::]/'],
  ['IPv6 loopback', 'http://[::1]:8080/'],
  ['IPv4-compatible loopback', 'http://[::127.0.0.1]/'],
  ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/'],
  ['IPv4-mapped, hex', 'http://[::ffff:7f00:1]/'],
  ['IPv4-mapped private', 'http://[::ffff:10.0.0.1]/'],
  ['IPv4-mapped metadata', 'http://[::ffff:a9fe:a9fe]/'],
  ['IPv4-translated loopback', 'http://[::ffff:0:7f00:1]/'],
  ['NAT64 loopback', 'http://[64:ff9b::7f00:1]/'],
  ['NAT64 metadata', 'http://[64:ff9b::169.254.169.254]/'],
  ['NAT64 local-use prefix', 'http://[64:ff9b:1::7f00:1]/'],
  ['NAT64 local-use prefix, public-looking', 'http://[64:ff9b:1::808:808]/'],
  ['6to4 loopback', 'http://[2002:7f00:1::]/'],
  ['6to4 private', 'http://[2002:c0a8:101::1]/'],
  ['Teredo, loopback client', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/'],
  ['Teredo, private server', 'http://[2001:0:a00:1:8000:63bf:f7f7:f7f7]/'],
  ['IPv6 link-local', 'http://[fe80::1]/'],
  ['IPv6 unique-local fc00::/7', 'http://[fc00::1]/'],
  ['IPv6 unique-local fd00::/8', 'http://[fd12:3456::1]/'],
  ['IPv6 site-local fec0::/10', 'http://[fec0::1]/'],
  ['IPv6 documentation', 'http://[2001:db8::1]/'],
  ['IPv6 documentation 3fff::/20', 'http://[3fff::1]/'],
  ['IPv6 multicast', 'http://[ff02::1]/'],
  ['IPv6 discard', 'http://[100::1]/'],
  ['IPv6 benchmarking', 'http://[2001:2::1]/'],
  ['IPv6 outside 2000::/3', 'http://[4000::1]/'],
];

const ACCEPTED_TARGETS: [string, string][] = [
  ['public IPv4', 'https://8.8.8.8/hook'],
  ['public IPv4 near CGNAT', 'https://100.128.0.1/hook'],
  ['public IPv4 near 172.16/12', 'https://172.32.0.1/hook'],
  ['public IPv6', 'https://[2606:4700::1111]/hook'],
  ['IPv4-mapped public', 'https://[::ffff:8.8.8.8]/hook'],
  ['NAT64 well-known prefix, public', 'https://[64:ff9b::808:808]/hook'],
  ['6to4, public', 'https://[2002:808:808::1]/hook'],
  ['Teredo, public server and client', 'https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/hook'],
];

describe('private targets in every spelling', () => {
  it('covers at least 30 refused spellings', () => {
    expect(REFUSED_TARGETS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(REFUSED_TARGETS)('refuses %s (%s) at registration', async (_what, url) => {
    await expect(assertWebhookTarget(url, strict())).rejects.toMatchObject({
      code: 'common.err.validation_failed',
      message: 'webhook_url must not point at a private, loopback or link-local address',
    });
  });

  it.each(ACCEPTED_TARGETS)('accepts %s (%s)', async (_what, url) => {
    await expect(assertWebhookTarget(url, strict())).resolves.toBe(new URL(url).toString());
  });

  it.each(REFUSED_TARGETS)('blocks the host of %s (%s) at connect time', (_what, url) => {
    expect(isBlockedAddress(new URL(url).hostname.replace(/^\[(.*)\]$/, '$1'))).toBe(true);
  });

  it.each(['not-an-ip', '', '0177.0.0.1', '127.1', 'fe80::1%eth0'])('blocks %j, which DNS would never answer', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])('lets a resolved public %s through', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
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
