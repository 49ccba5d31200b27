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
