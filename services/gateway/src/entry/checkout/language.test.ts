import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { chooseLanguage, fromAcceptLanguage } from './language';

describe('fromAcceptLanguage (Express req.acceptsLanguages)', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const app = express().get('/', (req, res) => void res.json({ language: fromAcceptLanguage(req) }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const preferred = async (header: string | undefined): Promise<unknown> => {
    const res = await fetch(url, { headers: header === undefined ? {} : { 'Accept-Language': header } });
    return ((await res.json()) as { language: unknown }).language;
  };

  it.each([
    ['ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7', 'ru'],
    ['en-GB,en;q=0.9', 'en'],
    ['de-DE,de;q=0.9,en;q=0.8,ru;q=0.7', 'en'],
    ['ru;q=0.5, en;q=0.8', 'en'],
    ['EN-us', 'en'],
    ['fr, ru, en', 'ru'],
    ['en;q=0.8, ru;q=0.8', 'en'],
    ['ru;q=0, en;q=0.1', 'en'],
    ['ru;q=abc, en;q=0.3', 'en'],
  ])('picks the best supported language of %j: %s', async (header, expected) => {
    expect(await preferred(header)).toBe(expected);
  });

  it.each(['en;q=0', 'de, fr', '<script>', ';;;,'])('finds nothing supported in %j', async (header) => {
    expect(await preferred(header)).toBeNull();
  });

  it.each([undefined, '*'])('takes the first supported (Russian) for %j, which accepts anything', async (header) => {
    expect(await preferred(header)).toBe('ru');
  });
});

describe('chooseLanguage', () => {
  it('prefers the switch, then the cookie, then the browser, then Russian', () => {
    expect(chooseLanguage({ query: 'en', cookie: 'ru', acceptLanguage: 'ru' })).toBe('en');
    expect(chooseLanguage({ query: undefined, cookie: 'en', acceptLanguage: 'ru' })).toBe('en');
    expect(chooseLanguage({ query: undefined, cookie: undefined, acceptLanguage: 'en' })).toBe('en');
    expect(chooseLanguage({ query: undefined, cookie: undefined, acceptLanguage: null })).toBe('ru');
  });

  it('ignores unsupported or repeated switch and cookie values', () => {
    expect(chooseLanguage({ query: 'de', cookie: 'xx', acceptLanguage: 'en' })).toBe('en');
    expect(chooseLanguage({ query: ['en', 'ru'], cookie: undefined, acceptLanguage: null })).toBe('ru');
  });
});
