import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { validationFailed } from '@pl/errors';

/**
 * Webhook targets a merchant may register: http(s) only, and no private, loopback, link-local or
 * otherwise non-public address unless the deployment allows them (local runs and tests). This stops a
 * merchant from pointing the notifier at the platform's own network (SSRF). The notifier re-checks
 * at connect time with {@link isBlockedAddress}, because DNS can change after registration.
 */

const MAX_URL_LENGTH = 2048;

/** Addresses that are not public unicast: never a legitimate merchant endpoint. */
export const blockedTargets: BlockList = (() => {
  const list = new BlockList();
  const v4: Array<[string, number]> = [
    ['0.0.0.0', 8], // "this network"
    ['10.0.0.0', 8],
    ['100.64.0.0', 10], // carrier-grade NAT
    ['127.0.0.0', 8],
    ['169.254.0.0', 16], // link-local, cloud metadata endpoints
    ['172.16.0.0', 12],
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.168.0.0', 16],
    ['198.18.0.0', 15], // benchmarking
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ];
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  const v6: Array<[string, number]> = [
    ['::', 128], // unspecified
    ['::1', 128],
    ['fc00::', 7], // unique local
    ['fe80::', 10], // link-local
    ['ff00::', 8], // multicast
  ];
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
})();

/**
 * True when an IP literal must not be connected to. IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is judged
 * by its IPv4 address (BlockList does that); anything that is not an IP literal is blocked.
 */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return blockedTargets.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Resolves a host name to every address it has. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const resolveWithDns: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface WebhookTargetPolicy {
  /** Lets private, loopback and link-local targets through (local runs and tests). */
  allowPrivateTargets: boolean;
  resolve?: ResolveHost;
}

/** Parses and checks the form of a webhook URL (no DNS); returns the normalized URL. */
export function parseWebhookUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH) throw invalid(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('must use http or https');
  // Credentials in a URL end up in logs and proxies; the webhook secret is the way to authenticate.
  if (url.username || url.password) throw invalid('must not carry credentials');
  if (!url.hostname) throw invalid('must name a host');
  return url;
}

/**
 * Checks a webhook URL at registration: its form, then every address its host resolves to. Throws
 * a validation error (400) naming `webhook_url`; returns the normalized URL text.
 */
export async function assertWebhookTarget(raw: string, policy: WebhookTargetPolicy): Promise<string> {
  const url = parseWebhookUrl(raw);
  if (policy.allowPrivateTargets) return url.toString();
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = await (policy.resolve ?? resolveWithDns)(host);
    } catch {
      throw invalid('host name does not resolve');
    }
    if (addresses.length === 0) throw invalid('host name does not resolve');
  }
  if (addresses.some(isBlockedAddress)) throw invalid('must not point at a private, loopback or link-local address');
  return url.toString();
}

const invalid = (reason: string) =>
  validationFailed(`webhook_url ${reason}`, [{ path: ['webhook_url'], message: reason }]);
