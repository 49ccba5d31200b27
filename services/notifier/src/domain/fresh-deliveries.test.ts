import type { EventType, PaymentSucceededEvent } from '@pl/contracts';
import type { AttemptResult, Claim, ClaimedDelivery, DeliveryQueue, WebhookSender, WebhookTargetSource } from './delivery';
import { DeliveryWorker } from './delivery-worker';
import {
  acceptEvents,
  type EventInbox,
  type EventSubscriptions,
  type InboxEvent,
  type NewDelivery,
  type ReceivedPaymentEvent,
} from './payment-event';

/** Pure units: the worker and the intake with in-memory stand-ins for the database and the network. */

const ok = (): AttemptResult => ({
  at: new Date(),
  durationMs: 1,
  statusCode: 200,
  error: null,
  responseHead: null,
  ok: true,
  throttled: false,
  retryAfterMs: null,
});

/** A sender whose requests the test answers by hand, so attempts stay in flight as long as it wants. */
function heldSender(): WebhookSender & { sent: string[]; answerAll(): void } {
  const waiting: (() => void)[] = [];
  const sent: string[] = [];
  return {
    sent,
    send: (url) =>
      new Promise((resolve) => {
        sent.push(url);
        waiting.push(() => resolve(ok()));
      }),
    answerAll: () => waiting.splice(0).forEach((answer) => answer()),
  };
}

function recordingQueue(): DeliveryQueue & { claimQueries: number; recorded: string[] } {
  const q = {
    claimQueries: 0,
    recorded: [] as string[],
    claimDue: async (): Promise<Claim> => {
      q.claimQueries += 1;
      return { claims: [], seen: 0 };
    },
    recordAttempt: async (claim: ClaimedDelivery): Promise<number> => {
      q.recorded.push(claim.id);
      return 0;
    },
    release: async (): Promise<void> => undefined,
  };
  return q;
}

/** Every shop sends to one URL per shop id. */
const targets: WebhookTargetSource = {
  targetOf: async (shopId) => ({
    url: `https://shop-${shopId}.example/hook`,
    secret: null,
    previousSecret: null,
    webhookEvents: ['payment.succeeded'],
  }),
};

function worker(sender: WebhookSender, queue: DeliveryQueue, concurrency: number, perEndpoint: number): DeliveryWorker {
  return new DeliveryWorker(
    queue,
    targets,
    sender,
    {
      policy: { delaysMs: [1000, 1000, 1000, 1000, 1000, 1000, 1000], minDelayAfterThrottleMs: 1000 },
      concurrency,
      perEndpointConcurrency: perEndpoint,
      pollIntervalMs: 60_000,
      leaseMs: 30_000,
      lookupRetryMs: 1000,
    },
    { info: () => undefined, warn: () => undefined, error: () => undefined },
  );
}

let n = 0;
const event = (shopId: number): PaymentSucceededEvent => {
  n += 1;
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return {
    event_id: id,
    event: 'payment.succeeded',
    occurred_at: '2026-11-24T10:00:00+03:00',
    merchant_id: '00000000-0000-4000-8000-999999999999',
    livemode: true,
    data: {
      payment_link_id: id,
      id,
      shop_id: shopId,
      order_id: null,
      amount: '10.00',
      merchant_credit: '9.90',
      status: 'paid',
      paid_at: '2026-11-24T10:00:00+03:00',
    },
  };
};

/** An inbox that stores every event it has not seen before, and remembers what it was given. */
function memoryInbox(): EventInbox & { stored: NewDelivery[] } {
  const known = new Set<string>();
  const inbox = {
    stored: [] as NewDelivery[],
    storeAll: async (items: readonly InboxEvent[]): Promise<Set<string>> => {
      const created = new Set<string>();
      for (const { event: e, delivery } of items) {
        if (known.has(e.event_id)) continue;
        known.add(e.event_id);
        if (!delivery) continue;
        inbox.stored.push(delivery);
        created.add(delivery.id);
      }
      return created;
    },
  };
  return inbox;
}

/** Every shop is sent payment.succeeded (the default) except shop 99, which is sent nothing. */
const subscriptions: EventSubscriptions = { eventsOf: async (shopId): Promise<EventType[]> => (shopId === 99 ? [] : ['payment.succeeded']) };
const acceptPaymentEvents = (
  inbox: EventInbox,
  received: readonly ReceivedPaymentEvent[],
  makeId: () => string,
  slots: Parameters<typeof acceptEvents>[4],
): ReturnType<typeof acceptEvents> => acceptEvents(inbox, subscriptions, received, makeId, slots);

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
let ids = 0;
const newId = (): string => `delivery-${(ids += 1)}`;

describe('fresh deliveries', () => {
  it('stores a new event claimed and sends it at once, with no claim query', async () => {
    const sender = heldSender();
    const queue = recordingQueue();
    const w = worker(sender, queue, 10, 5);
    const inbox = memoryInbox();
    const accepted = await acceptPaymentEvents(inbox, [{ event: event(1), traceparent: null }], newId, w);
    expect(accepted).toEqual({ stored: 1, due: 0 });
    expect(inbox.stored[0]?.claim).toEqual({ leaseToken: expect.any(String), leaseMs: 30_000 });
    await flush();
    expect(sender.sent).toEqual(['https://shop-1.example/hook']);
    sender.answerAll();
    await w.stop(1000);
    expect(queue.recorded).toEqual([inbox.stored[0]?.id]);
    expect(queue.claimQueries).toBe(0);
  });

  it('stores what finds no free slot due, within the process bound and the endpoint bound', async () => {
    const sender = heldSender();
    const w = worker(sender, recordingQueue(), 3, 2);
    const inbox = memoryInbox();
    // Shop 1 has room for two; the process for three in all.
    const received = [1, 1, 1, 2, 2].map((shop) => ({ event: event(shop), traceparent: null }));
    const accepted = await acceptPaymentEvents(inbox, received, newId, w);
    expect(accepted).toEqual({ stored: 5, due: 2 });
    expect(inbox.stored.map((d) => d.claim !== null)).toEqual([true, true, false, true, false]);
    await flush();
    expect(sender.sent.sort()).toEqual(['https://shop-1.example/hook', 'https://shop-1.example/hook', 'https://shop-2.example/hook']);
    sender.answerAll();
    await w.stop(1000);
  });

  it('gives the slot of an event already taken in back, and of a slice whose store failed', async () => {
    const sender = heldSender();
    const w = worker(sender, recordingQueue(), 1, 1);
    const inbox = memoryInbox();
    const repeated = event(7);
    await acceptPaymentEvents(inbox, [{ event: repeated, traceparent: null }], newId, w);
    await flush();
    sender.answerAll();
    await flush();
    // The one slot is free again after the attempt: a repeat of the same event takes no slot for good.
    expect(await acceptPaymentEvents(inbox, [{ event: repeated, traceparent: null }], newId, w)).toEqual({ stored: 0, due: 0 });
    const failing: EventInbox = { storeAll: () => Promise.reject(new Error('database unavailable')) };
    await expect(acceptPaymentEvents(failing, [{ event: event(7), traceparent: null }], newId, w)).rejects.toThrow('database unavailable');
    // Neither left its reservation behind: the next event still gets the one slot.
    expect(await acceptPaymentEvents(inbox, [{ event: event(7), traceparent: null }], newId, w)).toEqual({ stored: 1, due: 0 });
    await flush();
    expect(sender.sent).toHaveLength(2);
    sender.answerAll();
    await w.stop(1000);
  });

  it('takes no slot for an event its shop is not sent, and creates no delivery for it', async () => {
    const sender = heldSender();
    const w = worker(sender, recordingQueue(), 1, 1);
    const inbox = memoryInbox();
    const received = [99, 1].map((shop) => ({ event: event(shop), traceparent: null }));
    expect(await acceptPaymentEvents(inbox, received, newId, w)).toEqual({ stored: 1, due: 0 });
    expect(inbox.stored.map((d) => d.shopId)).toEqual([1]);
    await flush();
    expect(sender.sent).toEqual(['https://shop-1.example/hook']);
    sender.answerAll();
    await w.stop(1000);
  });
});
