import { randomBytes } from 'node:crypto';
import type { NatsConnection } from 'nats';
import pino from 'pino';
import { subjects } from '@pl/contracts';
import { BusClient } from './bus-client';
import { IdentityTokens } from './identity-tokens';
import { connectNats } from './nats-connection';

jest.setTimeout(20_000);

describe('BusClient errors', () => {
  let nc: NatsConnection;
  let client: BusClient;
  const namespace = `bus-client-test-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    nc = await connectNats('nats://127.0.0.1:4222', 'bus-client-test', pino({ level: 'silent' }));
    client = new BusClient(nc, namespace, new IdentityTokens('bus-client-test-identity-secret-0123456789'), 1000);
  });

  afterAll(() => nc?.close());

  it('answers 503 common.err.unavailable naming no subject when nobody serves it', async () => {
    const failure = client.request(subjects.linksGet, { id: '00000000-0000-4000-8000-000000000000' }, { kind: 'service', service: 'gateway' });
    await expect(failure).rejects.toMatchObject({ kind: 'unavailable', code: 'common.err.unavailable' });
    const message = await failure.catch((e: unknown) => (e instanceof Error ? e.message : String(e)));
    expect(message).not.toMatch(/links|\.get|subject|nats|bus-client-test/i);
  });
});
