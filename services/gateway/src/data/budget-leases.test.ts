import { BudgetLeases, type Grant } from './budget-leases';

/** A fixed-window counter like the Redis one: taking n adds n, and over the limit is refused. */
function store(limit: number, now: () => number, windowMs = 60_000) {
  const s = {
    calls: 0,
    counted: 0,
    windowEnds: 0,
    failing: false,
    take: async (_key: string, n: number): Promise<Grant> => {
      s.calls += 1;
      if (s.failing) throw new Error('redis is down');
      if (now() >= s.windowEnds) {
        s.counted = 0;
        s.windowEnds = now() + windowMs;
      }
      s.counted += n;
      const msBeforeNext = s.windowEnds - now();
      return { allowed: s.counted <= limit, remaining: Math.max(0, limit - s.counted), msBeforeNext };
    },
  };
  return s;
}

describe('BudgetLeases', () => {
  let clock = 0;
  const now = (): number => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  const spend = async (budget: BudgetLeases, n: number): Promise<Grant[]> => {
    const grants: Grant[] = [];
    for (let i = 0; i < n; i++) grants.push(await budget.consume('k'));
    return grants;
  };

  it('counts every request in the store for a budget under 2,000, exactly as before', async () => {
    const s = store(5, now);
    const grants = await spend(new BudgetLeases(5, s.take, now), 7);
    expect(grants.map((g) => g.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(grants.map((g) => g.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    expect(s.calls).toBe(7);
  });

  it('takes a large budget in leases of 0.1 % (at most 100) and counts remaining requests down', async () => {
    const s = store(1_000_000_000, now);
    const grants = await spend(new BudgetLeases(1_000_000_000, s.take, now), 250);
    expect(grants.every((g) => g.allowed)).toBe(true);
    expect(s.calls).toBe(3);
    expect(grants[0]!.remaining).toBe(1_000_000_000 - 1);
    expect(grants[249]!.remaining).toBe(1_000_000_000 - 250);
  });

  it('answers from a lease at once, without the store, until the lease is used up', async () => {
    const s = store(1_000_000, now);
    const budget = new BudgetLeases(1_000_000, s.take, now);
    expect(budget.consumeLocally('k')).toBeUndefined();
    await budget.consume('k');
    const local = Array.from({ length: 100 }, () => budget.consumeLocally('k'));
    expect(local.filter((g) => g?.allowed)).toHaveLength(99);
    expect(local[99]).toBeUndefined();
    expect(s.calls).toBe(1);
  });

  it('lets concurrent requests of one key share one lease', async () => {
    const s = store(100_000, now);
    const budget = new BudgetLeases(100_000, s.take, now);
    const grants = await Promise.all(Array.from({ length: 100 }, () => budget.consume('k')));
    expect(grants.every((g) => g.allowed)).toBe(true);
    expect(s.calls).toBe(1);
  });

  it('never admits beyond the budget: leases shrink to what is left, then requests are refused until the window resets', async () => {
    const s = store(5_000, now);
    const budget = new BudgetLeases(5_000, s.take, now);
    const grants = await spend(budget, 5_010);
    expect(grants.filter((g) => g.allowed)).toHaveLength(5_000);
    expect(grants.slice(5_000).every((g) => !g.allowed && g.remaining === 0)).toBe(true);
    expect(s.counted).toBeLessThanOrEqual(5_001);
    clock += 60_000;
    expect((await budget.consume('k')).allowed).toBe(true);
  });

  it('throws while the store fails, so the caller can fail open, and leases again once it is back', async () => {
    const s = store(1_000_000, now);
    const budget = new BudgetLeases(1_000_000, s.take, now);
    s.failing = true;
    await expect(budget.consume('k')).rejects.toThrow('redis is down');
    s.failing = false;
    expect((await budget.consume('k')).allowed).toBe(true);
  });
});
