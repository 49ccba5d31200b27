import { randomBytes } from 'node:crypto';
import { headers, type NatsConnection } from 'nats';
import pino from 'pino';
import { connectNats } from './nats-connection';
import { NoReply, RequestMux } from './request-mux';

jest.setTimeout(20_000);

describe('RequestMux', () => {
  let nc: NatsConnection;
  let mux: RequestMux;
  const subject = `mux-test-${randomBytes(6).toString('hex')}.echo`;

  beforeAll(async () => {
    nc = await connectNats('nats://127.0.0.1:4222', 'request-mux-test', pino({ level: 'silent' }));
    nc.subscribe(subject, { callback: (_err, msg) => msg.respond(`echo:${msg.string()}`) });
    await nc.flush();
    mux = new RequestMux(nc);
  });

  afterAll(() => nc?.close());

  it('matches each reply to its request, many in flight at once', async () => {
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => mux.request(subject, String(i), headers(), 5000).then((r) => Buffer.from(r).toString())),
    );
    expect(replies).toEqual(Array.from({ length: 50 }, (_, i) => `echo:${i}`));
  });

  it('fails at once when nobody serves the subject, not at the time-out', async () => {
    const failure = mux.request(`${subject}.nobody`, '{}', headers(), 60_000);
    await expect(failure).rejects.toBeInstanceOf(NoReply);
    await expect(failure).rejects.toThrow('no responders');
  });

  it('fails after the time-out when a responder stays silent', async () => {
    const silent = `${subject}.silent`;
    const sub = nc.subscribe(silent, { callback: () => undefined });
    await nc.flush();
    try {
      await expect(mux.request(silent, '{}', headers(), 200)).rejects.toThrow('timed out');
    } finally {
      sub.unsubscribe();
    }
  });
});
