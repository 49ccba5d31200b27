import { scheduledAmount } from './run-payout-schedule';

const settings = { feeKopecks: 150, maxKopecks: 100_000_00 };

describe('scheduledAmount', () => {
  it('pays all of available less the fee once that reaches the minimum', () => {
    expect(scheduledAmount(500_00, 100_00, settings)).toBe(498_50);
    expect(scheduledAmount(100_00 + 150, 100_00, settings)).toBe(100_00);
    expect(scheduledAmount(100_00 + 149, 100_00, settings)).toBeNull();
  });

  it('never pays less than 100.00, and at most PAYOUT_MAX (the rest waits for the next period)', () => {
    expect(scheduledAmount(99_00, 1, settings)).toBeNull();
    expect(scheduledAmount(250_000_00, 100_00, settings)).toBe(100_000_00);
  });

  it('pays nothing from a balance smaller than the fee', () => {
    expect(scheduledAmount(100, 100_00, settings)).toBeNull();
  });
});
