import { isJsonMediaType } from './json-body';

describe('isJsonMediaType', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'application/json;charset="UTF-8"',
    'application/json; charset=utf8',
  ])('accepts %j', (ct) => expect(isJsonMediaType(ct)).toBe(true));

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/jsonp',
    'application/json; charset=latin1',
    'application/json; boundary=x',
    'application/json, text/plain',
    'application/json\u0000',
    'multipart/form-data',
    '',
  ])('refuses %j', (ct) => expect(isJsonMediaType(ct)).toBe(false));
});
