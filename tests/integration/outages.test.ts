import { eventually } from '@pl/testing';
import { expectError } from '../support/http';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
let token: string;
beforeAll(async () => {
  sys = await startSystem({ faults: true });
  ({ merchant, shop } = await sys.merchantWithShop());
  token = await sys.login(merchant);
});
afterAll(() => sys?.stop());

const createLink = () => sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 10 }, { headers: merchant.keys });
const listWithSession = () => sys.http.get('/api/v1/payment-links', { headers: { Authorization: `Bearer ${token}` } });

/** Calls fn until it answers the wanted status; the services reconnect on their own, so no fixed sleep. */
async function answers(fn: () => Promise<{ status: number }>, status: number, withinMs = 15_000): Promise<void> {
  let last = 0;
  // Polling the recovery itself: there is no event to await from outside.
  await eventually(
    async () => (last = (await fn()).status) === status,
    () => `still ${last}, wanted ${status}`,
    withinMs,
    100,
  );
}

const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t = Date.now();
  const r = await fn();
  return [r, Date.now() - t];
};

describe.each(['postgres', 'redis', 'nats'] as const)('when %s goes down', (dependency) => {
  it('answers 503 common.err.unavailable within the request timeout, keeps running and serves again once it is back', async () => {
    expect((await createLink()).status).toBe(201);
    sys.faults![dependency].down();
    try {
      const [res, ms] = await timed(dependency === 'redis' ? listWithSession : createLink);
      expectError(res, 503, 'common.err.unavailable');
      expect(res.headers.get('retry-after')).toBeTruthy();
      // Bounded by the NATS request timeout of the test system (2 s), with room for a slow machine.
      expect(ms).toBeLessThan(10_000);
    } finally {
      sys.faults![dependency].up();
    }
    await answers(createLink, 201);
    await answers(listWithSession, 200);
  });
});

it('keeps API-key routes, which need no Redis, working while Redis is down', async () => {
  sys.faults!.redis.down();
  try {
    expect((await createLink()).status).toBe(201);
  } finally {
    sys.faults!.redis.up();
  }
});

it('loses nothing: a link created before a Postgres outage reads back unchanged after it', async () => {
  const created = await createLink();
  const read = () => sys.http.get(`/merchant/v1/payment-links/${created.body.id}`, { headers: merchant.keys });
  sys.faults!.postgres.down();
  try {
    expectError(await read(), 503, 'common.err.unavailable');
  } finally {
    sys.faults!.postgres.up();
  }
  await answers(read, 200);
  expect((await read()).body).toEqual(created.body);
});
