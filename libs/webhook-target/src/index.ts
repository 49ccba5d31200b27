import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { validationFailed } from '@pl/errors';
import { isPublicAddress } from './public-address';

export { isPublicAddress } from './public-address';

/**
 * Webhook targets a merchant may register: http(s) only, and no private, loopback, link-local or
 * otherwise non-public address unless the deployment allows them (local runs and tests). This stops a
 * merchant from pointing the notifier at the platform's own network (SSRF). The notifier re-checks
 * at connect time with {@link isBlockedAddress}, because DNS can change after registration.
 */

const MAX_URL_LENGTH = 2048;

/**
 * True when an address must not be connected to: anything but a public unicast IP literal
 * ({@link isPublicAddress}, which judges IPv4-mapped, NAT64, 6to4 and Teredo forms by the IPv4 they carry).
 */
export const isBlockedAddress = (address: string): boolean => !isPublicAddress(address);

/** Resolves a host name to every address it has. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const resolveWithDns: ResolveHost = async (hostname) => (await lookup(hostname, { all: true, order: 'verbatim' })).map((a) => a.address);

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

const invalid = (reason: string) => validationFailed(`webhook_url ${reason}`, [{ field: 'webhook_url', code: 'custom', message: reason }]);
