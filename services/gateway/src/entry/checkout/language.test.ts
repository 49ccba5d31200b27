import { chooseLanguage, fromAcceptLanguage } from './language';

describe('fromAcceptLanguage', () => {
  it.each([
    ['ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7', 'ru'],
    ['en-GB,en;q=0.9', 'en'],
    ['de-DE,de;q=0.9,en;q=0.8,ru;q=0.7', 'en'],
    ['ru;q=0.5, en;q=0.8', 'en'],
    ['EN-us', 'en'],
    ['fr, ru, en', 'ru'],
  ])('picks the best supported language of %j: %s', (header, expected) => {
    expect(fromAcceptLanguage(header)).toBe(expected);
  });

  it('keeps header order between equal weights', () => {
    expect(fromAcceptLanguage('en;q=0.8, ru;q=0.8')).toBe('en');
  });

  it('treats q=0 as "not this language"', () => {
    expect(fromAcceptLanguage('ru;q=0, en;q=0.1')).toBe('en');
    expect(fromAcceptLanguage('en;q=0')).toBeNull();
  });

  it.each([undefined, '', '*', 'de, fr', 'ru;q=2', 'ru;q=abc', '<script>', ';;;,'])('finds nothing supported in %j', (header) => {
    expect(fromAcceptLanguage(header)).toBeNull();
  });

  it('skips a malformed entry and still reads the rest', () => {
    expect(fromAcceptLanguage('ru;q=1.5, en;q=0.3')).toBe('en');
  });
});

describe('chooseLanguage', () => {
  it('prefers the switch, then the remembered choice, then the browser, then Russian', () => {
    expect(chooseLanguage({ query: 'en', cookie: 'ru', acceptLanguage: 'ru' })).toBe('en');
    expect(chooseLanguage({ query: undefined, cookie: 'en', acceptLanguage: 'ru' })).toBe('en');
    expect(chooseLanguage({ query: undefined, cookie: undefined, acceptLanguage: 'en-US' })).toBe('en');
    expect(chooseLanguage({ query: undefined, cookie: undefined, acceptLanguage: 'de' })).toBe('ru');
  });

  it('ignores unsupported or repeated switch and cookie values', () => {
    expect(chooseLanguage({ query: 'de', cookie: 'xx', acceptLanguage: 'en' })).toBe('en');
    expect(chooseLanguage({ query: ['en', 'ru'], cookie: undefined, acceptLanguage: undefined })).toBe('ru');
  });
});
