import { moscowDate } from '@pl/contracts';
import { toMoscowIso } from './moscow-time';

describe('toMoscowIso', () => {
  it('shifts UTC by three hours and writes the +03:00 offset', () => {
    expect(toMoscowIso(new Date('2026-01-31T22:30:15.999Z'))).toBe('2026-02-01T01:30:15+03:00');
  });

  it('matches the wire date contract', () => {
    expect(moscowDate.safeParse(toMoscowIso(new Date())).success).toBe(true);
  });
});
