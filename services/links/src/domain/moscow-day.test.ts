import { moscowDateOf, moscowDay } from './moscow-day';

describe('moscowDay', () => {
  it('starts a Moscow day at 21:00Z of the day before and ends it 24 hours later', () => {
    expect(moscowDay('2026-11-02')).toEqual({ from: new Date('2026-11-01T21:00:00Z'), to: new Date('2026-11-02T21:00:00Z') });
  });

  it('puts 20:59:59Z and 21:00:00Z on different Moscow days', () => {
    expect(moscowDateOf(new Date('2026-11-01T20:59:59.999Z'))).toBe('2026-11-01');
    expect(moscowDateOf(new Date('2026-11-01T21:00:00Z'))).toBe('2026-11-02');
  });

  it('crosses a year and a leap day', () => {
    expect(moscowDay('2028-01-01').from).toEqual(new Date('2027-12-31T21:00:00Z'));
    expect(moscowDateOf(new Date('2028-02-28T21:00:00Z'))).toBe('2028-02-29');
  });
});
