import type { IncomingMessage } from 'node:http';
import { callbackSenderOf } from './callback-sender';

/** A request as node hands it over: the connection's address and the headers. */
const from = (remoteAddress: string, forwardedFor?: string): IncomingMessage =>
  ({
    socket: { remoteAddress },
    connection: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

describe('callbackSenderOf', () => {
  it('takes the connection’s address, and X-Forwarded-For from nobody, when no proxy is trusted', () => {
    const sender = callbackSenderOf([]);
    expect(sender(from('193.28.44.23'))).toBe('193.28.44.23');
    expect(sender(from('10.0.0.5', '193.28.44.23'))).toBe('10.0.0.5');
  });

  it('believes X-Forwarded-For from a trusted proxy only, up to the first address no trusted proxy holds', () => {
    const sender = callbackSenderOf(['10.0.0.0/8', '172.16.0.1']);
    expect(sender(from('10.0.0.5', '193.28.44.23'))).toBe('193.28.44.23');
    // A sender that writes the allowed address itself is still itself: the proxy appended the real one.
    expect(sender(from('10.0.0.5', '193.28.44.23, 198.51.100.9'))).toBe('198.51.100.9');
    expect(sender(from('10.0.0.5', '193.28.44.23, 172.16.0.1'))).toBe('193.28.44.23');
    expect(sender(from('198.51.100.9', '193.28.44.23'))).toBe('198.51.100.9');
  });
});
