import { Receiver } from './receiver';
import { TestSystem } from './harness';

const BLOCKED = 'target address is private, loopback or link-local';

describe('webhook delivery with private targets refused (a deployment)', () => {
  const system = new TestSystem('notifguard', { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
  let receiver: Receiver;

  beforeAll(async () => {
    await system.start();
    receiver = await new Receiver().start();
  });

  afterAll(async () => {
    await receiver?.close();
    await system.stop();
  });

  it.each([
    ['an IP literal', () => receiver.url],
    ['a host name that resolves to loopback', () => `http://localhost:${receiver.port}/hook`],
    // Stored before the rule was tightened, or written past registration: the send itself refuses them.
    ['loopback behind NAT64', () => `http://[64:ff9b::7f00:1]:${receiver.port}/hook`],
    ['loopback behind 6to4', () => `http://[2002:7f00:1::]:${receiver.port}/hook`],
  ])('counts every attempt at %s as failed with the reason recorded, and never connects', async (_case, url) => {
    const event = system.event(await system.createShop(url(), 'secret'));
    await system.publish(event);
    expect(await system.settled(event.event_id)).toBe('failed');
    const attempts = await system.attempts(event.event_id);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const a of attempts) expect(a).toMatchObject({ status_code: null, error: BLOCKED });
    expect(receiver.hits).toHaveLength(0);
  });
});
