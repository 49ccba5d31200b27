import { Events, headers as natsHeaders, type NatsConnection } from 'nats';
import type { z } from 'zod';
import type { BroadcastContract, Identity, SubjectContract } from '@pl/contracts';
import { AppError, internal, unavailable } from '@pl/errors';
import { inSpan, injectTraceContext, SpanKind, type Registry } from '@pl/telemetry';
import { busHistogram, outcomeOf } from './bus-metrics';
import { IDENTITY_HEADER, okReplyData, REQUEST_ID_HEADER, subjectName, type ReplyEnvelope } from './envelope';
import type { IdentityTokens } from './identity-tokens';
import { RequestMux } from './request-mux';

export interface RequestOptions {
  requestId?: string;
  timeoutMs?: number;
}

/** A live broadcast subscription. */
export interface BroadcastSubscription {
  unsubscribe(): void;
}

export interface BusClientOptions {
  /** Where `nats_client_request_duration_seconds` is recorded; none when absent. */
  metrics?: Registry;
}

/**
 * Typed NATS request-reply: validates the payload before it leaves and the reply when it comes back (or
 * hands a reply's JSON on untouched, {@link requestJson}); and typed broadcasts. Each request is a CLIENT
 * span whose W3C trace context rides in the message headers.
 */
export class BusClient {
  private readonly duration;
  private readonly mux: RequestMux;

  constructor(
    private readonly nc: NatsConnection,
    private readonly namespace: string,
    private readonly tokens: IdentityTokens,
    private readonly defaultTimeoutMs = 5000,
    options: BusClientOptions = {},
  ) {
    this.duration = busHistogram(options.metrics, 'client');
    this.mux = new RequestMux(nc);
  }

  /** The reply's data, checked against the subject's response contract. */
  request<Req extends z.ZodType, Res extends z.ZodType>(
    subject: SubjectContract<Req, Res>,
    payload: z.input<Req>,
    identity: Identity,
    options: RequestOptions = {},
  ): Promise<z.output<Res>> {
    return this.exchange(subject, payload, identity, options, (reply) => {
      const envelope = JSON.parse(reply.toString('utf8')) as ReplyEnvelope<unknown>;
      if (!envelope.ok) throw AppError.fromWire(envelope.error);
      const parsed = subject.response.safeParse(envelope.data);
      // The subject stays on the span (messaging.destination.name); messages never name internals.
      if (!parsed.success) throw internal('A service reply broke its contract');
      return parsed.data;
    });
  }

  /**
   * The reply's data as the UTF-8 JSON the responder wrote, for a caller that only passes it on (the gateway
   * answering with a link): not decoded, parsed or serialized again. The contract is the responder's to keep
   * here; its handlers build replies with the contract's types. Errors come back as with {@link request}.
   */
  requestJson<Req extends z.ZodType, Res extends z.ZodType>(
    subject: SubjectContract<Req, Res>,
    payload: z.input<Req>,
    identity: Identity,
    options: RequestOptions = {},
  ): Promise<Buffer> {
    return this.exchange(subject, payload, identity, options, (reply) => {
      const data = okReplyData(reply);
      if (data !== null) return data;
      const envelope = JSON.parse(reply.toString('utf8')) as ReplyEnvelope<unknown>;
      if (!envelope.ok) throw AppError.fromWire(envelope.error);
      return Buffer.from(JSON.stringify(envelope.data), 'utf8');
    });
  }

  /** Publishes one message of a broadcast subject (checked against its contract); nobody answers. */
  publish<M extends z.ZodType>(contract: BroadcastContract<M>, message: z.input<M>): void {
    this.nc.publish(subjectName(this.namespace, contract.name), JSON.stringify(contract.message.parse(message)));
  }

  /**
   * Receives every message of a broadcast subject, outside any queue group, so each replica gets its own
   * copy. The handler runs as each message arrives, before any message that came after it on this
   * connection (a request, say). A message that breaks the contract is dropped. NATS delivers at most
   * once, so `onGap` runs whenever the connection came back after a break: what was published meanwhile is lost.
   */
  subscribe<M extends z.ZodType>(
    contract: BroadcastContract<M>,
    onMessage: (message: z.output<M>) => void,
    onGap: () => void,
  ): BroadcastSubscription {
    const sub = this.nc.subscribe(subjectName(this.namespace, contract.name), {
      callback: (err, msg) => {
        if (err) return;
        let payload: unknown;
        try {
          payload = JSON.parse(Buffer.from(msg.data).toString('utf8'));
        } catch {
          return;
        }
        const parsed = contract.message.safeParse(payload);
        if (parsed.success) onMessage(parsed.data);
      },
    });
    void (async () => {
      for await (const status of this.nc.status()) {
        if (sub.isClosed()) break;
        if (status.type === Events.Reconnect) onGap();
      }
    })();
    return { unsubscribe: () => sub.unsubscribe() };
  }

  private async exchange<Req extends z.ZodType, Res extends z.ZodType, T>(
    subject: SubjectContract<Req, Res>,
    payload: z.input<Req>,
    identity: Identity,
    options: RequestOptions,
    read: (reply: Buffer) => T,
  ): Promise<T> {
    const stop = this.duration?.startTimer({ subject: subject.name });
    const name = subjectName(this.namespace, subject.name);
    try {
      const result = await inSpan(
        `${subject.name} request`,
        { kind: SpanKind.CLIENT, attributes: { 'messaging.system': 'nats', 'messaging.destination.name': name, 'messaging.operation.type': 'send' } },
        async () => read(await this.send(subject, name, payload, identity, options)),
      );
      stop?.({ outcome: 'ok' });
      return result;
    } catch (e) {
      stop?.({ outcome: outcomeOf(e) });
      throw e;
    }
  }

  /** Sends the request and returns the reply's bytes. */
  private async send<Req extends z.ZodType, Res extends z.ZodType>(
    subject: SubjectContract<Req, Res>,
    name: string,
    payload: z.input<Req>,
    identity: Identity,
    options: RequestOptions,
  ): Promise<Buffer> {
    const body = subject.request.parse(payload);
    const h = natsHeaders();
    h.set(IDENTITY_HEADER, this.tokens.sign(identity));
    if (options.requestId) h.set(REQUEST_ID_HEADER, options.requestId);
    injectTraceContext((key, value) => h.set(key, value));
    let raw: Uint8Array;
    try {
      raw = await this.mux.request(name, JSON.stringify(body), h, options.timeoutMs ?? this.defaultTimeoutMs);
    } catch {
      // A timeout, no responder or a closed connection all mean the same to the caller: try later. The
      // message reaches merchants, so it names no subject (the span and the metrics carry it).
      throw unavailable('A service this request needs is unavailable; retry later');
    }
    return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  }
}
