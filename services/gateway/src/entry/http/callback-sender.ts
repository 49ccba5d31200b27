import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/**
 * The address a provider callback came from, as its allowed-address rule judges it: the connection's own address,
 * unless that is one of TRUSTED_PROXIES, in which case X-Forwarded-For is read from the right, past every trusted
 * proxy, to the first address none of them is (proxy-addr, what express's `trust proxy` uses). An address the
 * client wrote into the header itself is never reached while the proxy in front appends the real one.
 */
export function callbackSenderOf(trustedProxies: readonly string[]): (req: IncomingMessage) => string {
  const trusted = proxyAddr.compile([...trustedProxies]);
  return (req) => proxyAddr(req, trusted);
}
