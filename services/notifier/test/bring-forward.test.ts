import { eventually, withDeadline } from '@pl/testing';
import { Receiver } from './receiver';
import { TestSystem } from './harness';

describe('bring-forward when a failing endpoint recovers', () => {
  // After the second failure the next attempt is a minute away: only a bring-forward makes it sooner.
  const system = new TestSystem('notifbring', { WEBHOOK_RETRY_DELAYS_MS: '50,60000,60000,60000,60000,60000,60000' });
  let failing = true;
  let receiver: Receiver;

  beforeAll(async () => {
    await system.start();
    receiver = await new Receiver(() => ({ status: failing ? 500 : 200 })).start();
  });

  afterAll(async () => {
    await receiver?.close();
    await system.stop();
  });

  const attemptsMade = async (eventId: string): Promise<number> => (await system.delivery(eventId))?.attempts_made ?? 0;

  it('sends the waiting deliveries of an endpoint at once after it answers 2xx again', async () => {
    const shopId = await system.createShop(receiver.url, null);
    const waiting = [system.event(shopId), system.event(shopId)];
    for (const e of waiting) await system.publish(e);
    await withDeadline(receiver.nth(4), 10_000, 'the endpoint gets the first and second attempts of both deliveries');
    // The 4th request was answered; wait until both second failures are written down.
    await eventually(
      async () => (await Promise.all(waiting.map((e) => attemptsMade(e.event_id)))).every((n) => n >= 2),
      'both waiting deliveries record their second failure',
      10_000,
      25,
    );
    failing = false;
    const fresh = system.event(shopId);
    await system.publish(fresh);
    // The waiting deliveries' own third attempts are a minute away, far past this deadline: arriving within it,
    // right after the fresh delivery's success, they can only have been brought forward.
    await withDeadline(receiver.nth(7), 15_000, 'the waiting deliveries are sent again once the endpoint answers 2xx');
    for (const e of [...waiting, fresh]) expect(await system.settled(e.event_id)).toBe('succeeded');
    const third = receiver.hits.slice(4).filter((h) => h.headers['x-webhook-attempt'] === '3');
    expect(third.map((h) => h.headers['x-webhook-id']).sort()).toEqual(waiting.map((e) => `evt_${e.event_id}`).sort());
  });
});
