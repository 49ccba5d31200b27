import { loadConfig } from './config';

describe('links config', () => {
  it('defaults to ops port 9101 and the local public base URL', () => {
    const config = loadConfig({});
    expect(config.OPS_PORT).toBe(9101);
    expect(config.PUBLIC_BASE_URL).toBe('http://localhost:8080');
  });

  it('drops a trailing slash from PUBLIC_BASE_URL so checkout URLs have one', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com/' }).PUBLIC_BASE_URL).toBe('https://pay.example.com');
  });

  it.each(['not a url', 'ftp://pay.example.com'])('refuses PUBLIC_BASE_URL %s', (url) => {
    expect(() => loadConfig({ PUBLIC_BASE_URL: url })).toThrow(/PUBLIC_BASE_URL/);
  });
});

describe('links config in production', () => {
  const production = {
    NODE_ENV: 'production',
    IDENTITY_TOKEN_SECRET: 'i'.repeat(40),
    PUBLIC_BASE_URL: 'https://pay.example.com',
    PROVIDER_SANDBOX_SECRET: 's'.repeat(40),
    PROVIDER_SANDBOX_LIVE: 'true',
  };

  it('starts with an https base URL and its own identity secret', () => {
    expect(loadConfig(production).PUBLIC_BASE_URL).toBe('https://pay.example.com');
  });

  it('refuses an http PUBLIC_BASE_URL, the default included, naming it', () => {
    expect(() => loadConfig({ ...production, PUBLIC_BASE_URL: 'http://pay.example.com' })).toThrow(
      /PUBLIC_BASE_URL must be an https URL in production/,
    );
    const { PUBLIC_BASE_URL: _unset, ...withoutBaseUrl } = production;
    expect(() => loadConfig(withoutBaseUrl)).toThrow(/PUBLIC_BASE_URL must be an https URL in production/);
  });

  it('refuses the development identity secret, naming it', () => {
    const { IDENTITY_TOKEN_SECRET: _unset, ...withoutSecret } = production;
    expect(() => loadConfig(withoutSecret)).toThrow(/IDENTITY_TOKEN_SECRET must be set in production/);
  });
});

describe('links config: payments', () => {
  it('defaults the sandbox rates, the sweep and relay intervals and the topic', () => {
    const config = loadConfig({});
    expect(config.SANDBOX_RATES.USDT).toBe(9_500_000_000n);
    expect(config.EXPIRY_SWEEP_INTERVAL_MS).toBe(5000);
    expect(config.OUTBOX_POLL_INTERVAL_MS).toBe(1000);
    expect(config.PAYMENT_EVENTS_TOPIC).toBe('payment-events');
  });

  it.each([
    ['SANDBOX_RATES', 'USDT=95,BTC=1,ETH=1'],
    ['SANDBOX_RATES', 'USDT=95.0.0,BTC=1,ETH=1,TON=1'],
    ['EXPIRY_SWEEP_INTERVAL_MS', '0'],
    ['OUTBOX_POLL_INTERVAL_MS', 'soon'],
    ['PAYMENT_EVENTS_TOPIC', 'no spaces'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});
