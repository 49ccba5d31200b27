import { headers as natsHeaders, type NatsConnection } from 'nats';
import type { z } from 'zod';
import type { Identity, SubjectContract } from '@pl/contracts';
import { AppError, internal, unavailable } from '@pl/errors';
import { inSpan, injectTraceContext, SpanKind, type Registry } from '@pl/telemetry';
import { busHistogram, outcomeOf } from './bus-metrics';
import { IDENTITY_HEADER, REQUEST_ID_HEADER, subjectName, type ReplyEnvelope } from './envelope';
import type { IdentityTokens } from './identity-tokens';

export interface RequestOptions {
  requestId?: string;
  timeoutMs?: number;
}

export interface BusClientOptions {
  /** Where `nats_client_request_duration_seconds` is recorded; none when absent. */
  metrics?: Registry;
}

/**
 * Typed NATS request-reply: validates the payload before it leaves and the reply when it comes back.
 * Each request is a CLIENT span whose W3C trace context rides in the message headers.
 */
export class BusClient {
  private readonly duration;

  constructor(
    private readonly nc: NatsConnection,
    private readonly namespace: string,
    private readonly tokens: IdentityTokens,
    private readonly defaultTimeoutMs = 5000,
    options: BusClientOptions = {},
  ) {
    this.duration = busHistogram(options.metrics, 'client');
  }

  async request<Req extends z.ZodType, Res extends z.ZodType>(
    subject: SubjectContract<Req, Res>,
    payload: z.input<Req>,
    identity: Identity,
    options: RequestOptions = {},
  ): Promise<z.output<Res>> {
    const stop = this.duration?.startTimer({ subject: subject.name });
    const name = subjectName(this.namespace, subject.name);
    try {
      const result = await inSpan(
        `${subject.name} request`,
        { kind: SpanKind.CLIENT, attributes: { 'messaging.system': 'nats', 'messaging.destination.name': name, 'messaging.operation.type': 'send' } },
        () => this.send(subject, name, payload, identity, options),
      );
      stop?.({ outcome: 'ok' });
      return result;
    } catch (e) {
      stop?.({ outcome: outcomeOf(e) });
      throw e;
    }
  }

  private async send<Req extends z.ZodType, Res extends z.ZodType>(
    subject: SubjectContract<Req, Res>,
    name: string,
    payload: z.input<Req>,
    identity: Identity,
    options: RequestOptions,
  ): Promise<z.output<Res>> {
    const body = subject.request.parse(payload);
    const h = natsHeaders();
    h.set(IDENTITY_HEADER, this.tokens.sign(identity));
    if (options.requestId) h.set(REQUEST_ID_HEADER, options.requestId);
    injectTraceContext((key, value) => h.set(key, value));
    let raw: Uint8Array;
    try {
      const msg = await this.nc.request(name, JSON.stringify(body), {
        timeout: options.timeoutMs ?? this.defaultTimeoutMs,
        headers: h,
      });
      raw = msg.data;
    } catch {
      // A timeout, no responder or a closed connection all mean the same to the caller: try later.
      throw unavailable(`Service behind ${subject.name} is unavailable`);
    }
    const envelope = JSON.parse(Buffer.from(raw).toString('utf8')) as ReplyEnvelope<unknown>;
    if (!envelope.ok) throw AppError.fromWire(envelope.error);
    const parsed = subject.response.safeParse(envelope.data);
    if (!parsed.success) throw internal(`Reply on ${subject.name} broke its contract`);
    return parsed.data;
  }
}
