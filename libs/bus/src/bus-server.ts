import { randomUUID } from 'node:crypto';
import type { Msg, NatsConnection, Subscription } from 'nats';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { parseOrThrow, type Identity, type SubjectContract } from '@pl/contracts';
import { internal, invalidField, isAppError, type WireError } from '@pl/errors';
import { contextFrom, inSpan, SpanKind, SpanStatusCode, type Registry } from '@pl/telemetry';
import { busHistogram } from './bus-metrics';
import { IDENTITY_HEADER, type JsonText, maxPayloadOf, replyBytes, REQUEST_ID_HEADER, subjectName, type ReplyEnvelope } from './envelope';
import { publishedSoFar, publishSoon } from './publish-batch';
import type { IdentityTokens } from './identity-tokens';

export interface HandlerContext {
  identity: Identity;
  requestId: string;
  log: Logger;
}

/** A handler answers with the contract's response, as a value or already serialized ({@link JsonText}). */
export type SubjectHandler<Req extends z.ZodType, Res extends z.ZodType> = (
  request: z.output<Req>,
  ctx: HandlerContext,
) => Promise<z.input<Res> | JsonText<z.input<Res>>>;

export interface BusServerOptions {
  /** Where `nats_server_request_duration_seconds` is recorded; none when absent. */
  metrics?: Registry;
}

/**
 * Serves NATS subjects in a queue group, so replicas share the load. Each message is handled
 * concurrently; the identity token and the payload are re-validated here because this is a trust
 * boundary. Each message is handled in a SERVER span, the child of the caller's span when the message
 * carries a `traceparent`. {@link drain} stops taking messages and waits for the ones in flight.
 */
export class BusServer {
  private readonly subscriptions: Subscription[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly duration;

  constructor(
    private readonly nc: NatsConnection,
    private readonly namespace: string,
    private readonly tokens: IdentityTokens,
    private readonly queue: string,
    private readonly log: Logger,
    options: BusServerOptions = {},
  ) {
    this.duration = busHistogram(options.metrics, 'server');
  }

  handle<Req extends z.ZodType, Res extends z.ZodType>(subject: SubjectContract<Req, Res>, handler: SubjectHandler<Req, Res>): void {
    const sub = this.nc.subscribe(subjectName(this.namespace, subject.name), {
      queue: this.queue,
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err, subject: subject.name }, 'nats subscription error');
          return;
        }
        const done = this.dispatch(subject, handler, msg).finally(() => this.inFlight.delete(done));
        this.inFlight.add(done);
      },
    });
    this.subscriptions.push(sub);
  }

  private dispatch<Req extends z.ZodType, Res extends z.ZodType>(
    subject: SubjectContract<Req, Res>,
    handler: SubjectHandler<Req, Res>,
    msg: Msg,
  ): Promise<void> {
    const stop = this.duration?.startTimer({ subject: subject.name });
    const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': msg.subject, 'messaging.operation.type': 'process' };
    const parent = contextFrom((key) => msg.headers?.get(key) || undefined);
    return inSpan(`${subject.name} handle`, { kind: SpanKind.SERVER, attributes, parent }, async (span) => {
      const handled = await this.handleOne(subject, handler, msg);
      const { reply, bytes } = this.fitted(subject.name, handled);
      const outcome = reply.ok ? 'ok' : reply.error.kind;
      span.setAttribute('pl.outcome', outcome);
      if (outcome === 'internal') span.setStatus({ code: SpanStatusCode.ERROR });
      stop?.({ outcome });
      if (msg.reply) {
        publishSoon(() => {
          try {
            msg.respond(bytes);
          } catch (err) {
            // A connection that closed meanwhile: the reply is lost and the caller times out, as for any lost reply.
            this.log.warn({ err, subject: subject.name, reply_bytes: bytes.length }, 'nats reply not sent');
          }
        });
      }
    });
  }

  /**
   * The reply's bytes, or an internal error in its place when they exceed the server's `max_payload`: NATS
   * would refuse to send them, and the caller would wait out its whole time-out for an answer that never comes.
   * Replies are bounded by the contracts' limits below 1 MiB (tests/integration/bus-reply-sizes.test.ts), so this is
   * a bug that must be loud, not a slow 503.
   */
  private fitted(subjectName: string, reply: ReplyEnvelope<unknown>): { reply: ReplyEnvelope<unknown>; bytes: Buffer } {
    const bytes = replyBytes(reply);
    const limit = maxPayloadOf(this.nc);
    if (bytes.length <= limit) return { reply, bytes };
    const logId = randomUUID();
    this.log.error({ subject: subjectName, reply_bytes: bytes.length, max_payload: limit, log_id: logId }, 'nats reply exceeds max_payload');
    const refused: ReplyEnvelope<unknown> = { ok: false, error: internal(`Internal error (log id ${logId})`).toWire() };
    return { reply: refused, bytes: replyBytes(refused) };
  }

  private async handleOne<Req extends z.ZodType, Res extends z.ZodType>(
    subject: SubjectContract<Req, Res>,
    handler: SubjectHandler<Req, Res>,
    msg: Msg,
  ): Promise<ReplyEnvelope<unknown>> {
    const requestId = msg.headers?.get(REQUEST_ID_HEADER) || randomUUID();
    // A child logger costs more than a message takes to handle; most messages never log, so it is made on first use.
    let child: Logger | undefined;
    const parentLog = this.log;
    const ctxLog = (): Logger => (child ??= parentLog.child({ subject: subject.name, request_id: requestId }));
    let reply: ReplyEnvelope<unknown>;
    try {
      const identity = this.tokens.verify(msg.headers?.get(IDENTITY_HEADER) ?? '');
      let payload: unknown;
      try {
        payload = JSON.parse(Buffer.from(msg.data).toString('utf8'));
      } catch {
        throw invalidField('', 'is not valid JSON');
      }
      const data = await handler(parseOrThrow(subject.request, payload, 'Message'), {
        identity,
        requestId,
        get log() {
          return ctxLog();
        },
      });
      reply = { ok: true, data };
    } catch (e) {
      reply = { ok: false, error: toWire(e, ctxLog) };
    }
    return reply;
  }

  /** Stops taking new messages, then waits for those being handled. */
  async drain(): Promise<void> {
    await Promise.all(this.subscriptions.map((s) => s.drain().catch(() => undefined)));
    await Promise.allSettled([...this.inFlight]);
    // The last replies may still wait for this turn's batch: they must reach the connection before it closes.
    await publishedSoFar();
  }
}

function toWire(e: unknown, log: () => Logger): WireError {
  if (isAppError(e)) return e.toWire();
  const logId = randomUUID();
  log().error({ err: e, log_id: logId }, 'unexpected error in handler');
  return internal(`Internal error (log id ${logId})`).toWire();
}
