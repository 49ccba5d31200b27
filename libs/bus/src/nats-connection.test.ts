import type { NatsConnection } from 'nats';
import pino from 'pino';
import { eventually, FaultProxy } from '@pl/testing';
import { connectNats, natsAnswers } from './nats-connection';

jest.setTimeout(20_000);

/** The readiness check of every service: a reconnecting client is not closed, yet answers nothing. */
describe('natsAnswers', () => {
  let proxy: FaultProxy;
  let nc: NatsConnection;
  beforeAll(async () => {
    proxy = await new FaultProxy('127.0.0.1', 4222).start();
    nc = await connectNats(proxy.rewrite('nats://127.0.0.1:4222'), 'nats-answers-test', pino({ level: 'silent' }));
  });
  afterAll(async () => {
    await nc?.close();
    await proxy?.close();
  });

  it('is true while NATS answers, false while it is cut off (though the client is not closed), true again once it is back', async () => {
    await expect(natsAnswers(nc)).resolves.toBe(true);
    proxy.down();
    await eventually(async () => !(await natsAnswers(nc, 200)), 'natsAnswers false with NATS cut off', 5000);
    expect(nc.isClosed()).toBe(false);
    proxy.up();
    await eventually(() => natsAnswers(nc, 200), 'natsAnswers true once NATS is back', 10_000);
  });

  it('is false for a closed connection', async () => {
    const closed = await connectNats('nats://127.0.0.1:4222', 'nats-answers-closed', pino({ level: 'silent' }));
    await closed.close();
    await expect(natsAnswers(closed)).resolves.toBe(false);
  });
});
