import { PUBLIC_BASE_URL_MAX, publicBaseUrl } from './public-base-url';

describe('PUBLIC_BASE_URL', () => {
  it('accepts an http(s) URL up to the bound and drops trailing slashes', () => {
    const longest = `https://${'p'.repeat(PUBLIC_BASE_URL_MAX - 'https://'.length)}`;
    expect(publicBaseUrl.parse(longest)).toBe(longest);
    expect(publicBaseUrl.parse('https://pay.example.com//')).toBe('https://pay.example.com');
    expect(publicBaseUrl.parse(undefined)).toBe('http://localhost:8080');
  });

  it('refuses a longer URL, whose links would not fit the bus reply budget', () => {
    expect(publicBaseUrl.safeParse(`https://${'p'.repeat(PUBLIC_BASE_URL_MAX - 'https://'.length + 1)}`).success).toBe(false);
  });

  it('refuses a scheme other than http(s)', () => {
    expect(publicBaseUrl.safeParse('ftp://pay.example.com').success).toBe(false);
  });
});
