import { chooseRequestId, isValidRequestId } from './request-id';

describe('request id', () => {
  it.each(['a', 'req-123', 'x'.repeat(128), 'with space ~!'])('accepts %j', (id) => {
    expect(isValidRequestId(id)).toBe(true);
    expect(chooseRequestId(id)).toBe(id);
  });

  it.each(['', 'x'.repeat(129), 'tab\there', 'new\nline', 'кириллица', '\u0000'])('replaces %j with a fresh UUID', (id) => {
    expect(isValidRequestId(id)).toBe(false);
    expect(chooseRequestId(id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('makes a new id when none is sent', () => {
    expect(chooseRequestId(undefined)).not.toBe(chooseRequestId(undefined));
  });
});
