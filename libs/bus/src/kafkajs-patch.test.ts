/**
 * kafkajs 2.2.4 (maintenance mode, tulios/kafkajs#1751) arms a check of its pending requests after every request
 * even when nothing is pending and nothing throttles: with `throttledUntil` at -1 the delay is minus the epoch,
 * which node runs as 1 ms, and each check arms the next. Every broker connection of every producer and consumer
 * then spins a 1 ms timer for as long as it is open: about 2 % of a core per idle process on the bench's machine,
 * and a `TimeoutNegativeWarning` on stderr. `patches/kafkajs+2.2.4.patch` (applied by `patch-package` on install)
 * arms the check only when a request waits or a throttle ends; this fails if an install went without it.
 */
interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  destroy(): void;
}
type RequestQueueClass = new (options: Record<string, unknown>) => RequestQueue;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs's internals ship without types
const RequestQueueImpl = require('kafkajs/src/network/requestQueue') as RequestQueueClass;

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const newQueue = (): RequestQueue =>
  new RequestQueueImpl({
    maxInFlightRequests: null,
    requestTimeout: 1000,
    enforceRequestTimeout: true,
    clientId: 'test',
    broker: 'b:9092',
    logger: silent,
  });

describe('kafkajs request queue (patched)', () => {
  let queue: RequestQueue;
  beforeEach(() => {
    queue = newQueue();
  });
  afterEach(() => {
    queue.destroy();
  });

  it('arms no timer when nothing is pending and nothing throttles (what follows every answered request)', () => {
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });

  it('still arms one for a throttle that has not ended, so requests held by it go out when it does', () => {
    queue.throttledUntil = Date.now() + 60_000;
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
  });
});
