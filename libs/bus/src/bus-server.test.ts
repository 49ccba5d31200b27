import { randomBytes } from 'node:crypto';
import type { NatsConnection } from 'nats';
import pino from 'pino';
import { z } from 'zod';
import type { Identity, SubjectContract } from '@pl/contracts';
import { BusClient } from './bus-client';
import { BusServer } from './bus-server';
import { maxPayloadOf, okReplyText } from './envelope';
import { IdentityTokens } from './identity-tokens';
import { connectNats } from './nats-connection';

jest.setTimeout(20_000);

/** Answers a string of `length` characters; its reply is `length` + the envelope's bytes. */
const filler: SubjectContract<z.ZodObject<{ length: z.ZodNumber }>, z.ZodString> = {
  name: 'size.filler',
  request: z.strictObject({ length: z.number().int().min(0) }),
  response: z.string(),
};
const ENVELOPE_BYTES = Buffer.byteLength(okReplyText(''), 'utf8');
const CALLER: Identity = { kind: 'service', service: 'gateway' };

describe('BusServer reply size guard', () => {
  const namespace = `bus-size-${randomBytes(6).toString('hex')}`;
  const tokens = new IdentityTokens('bus-server-test-identity-secret-0123456789');
  const logged: Record<string, unknown>[] = [];
  let nc: NatsConnection;
  let server: BusServer;
  let client: BusClient;

  beforeAll(async () => {
    nc = await connectNats('nats://127.0.0.1:4222', 'bus-server-test', pino({ level: 'silent' }));
    const log = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) });
    server = new BusServer(nc, namespace, tokens, 'bus-server-test', log);
    server.handle(filler, async ({ length }) => 'x'.repeat(length));
    await nc.flush();
    // A time-out far beyond the test's own: a reply that never came would fail the test, not pass as an error.
    client = new BusClient(nc, namespace, tokens, 60_000);
  });

  afterAll(async () => {
    await server?.drain();
    await nc?.close();
  });

  it('compares replies with the max_payload the server announced', () => {
    expect(maxPayloadOf(nc)).toBe(nc.info?.max_payload);
    expect(maxPayloadOf({ info: undefined })).toBe(1024 * 1024);
  });

  it('sends a reply of exactly max_payload bytes', async () => {
    const length = maxPayloadOf(nc) - ENVELOPE_BYTES;
    await expect(client.request(filler, { length }, CALLER)).resolves.toHaveLength(length);
  });

  it('answers an internal error at once for a reply one byte over, and logs its subject and size', async () => {
    const limit = maxPayloadOf(nc);
    const failure = client.request(filler, { length: limit - ENVELOPE_BYTES + 1 }, CALLER);
    await expect(failure).rejects.toMatchObject({ kind: 'internal', code: 'common.err.internal' });
    // The message names no subject and no size: those are for the operator, in the log.
    await expect(failure).rejects.toThrow(/^Internal error \(log id [0-9a-f-]{36}\)$/);
    const line = logged.find((l) => l.msg === 'nats reply exceeds max_payload');
    expect(line).toMatchObject({ level: 50, subject: 'size.filler', reply_bytes: limit + 1, max_payload: limit });
    const error = (await failure.catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(String(line?.log_id));
  });

  it('keeps serving after refusing a reply', async () => {
    await expect(client.request(filler, { length: 3 }, CALLER)).resolves.toBe('xxx');
  });
});
