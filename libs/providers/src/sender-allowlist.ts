import { BlockList, isIP } from 'node:net';

/** Whether a callback's sender (already resolved through `TRUSTED_PROXIES`) may speak for a provider. */
export type SenderCheck = (address: string) => boolean;

/** `::ffff:193.28.44.23`, as a dual-stack socket reports an IPv4 peer, is the IPv4 address it wraps. */
const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

function addEntry(list: BlockList, entry: string): void {
  const [address = '', prefixText, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) throw new Error(`not an address or CIDR: ${entry}`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) {
    list.addAddress(address, type);
    return;
  }
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= (family === 4 ? 32 : 128))) throw new Error(`not an address or CIDR: ${entry}`);
  list.addSubnet(address, prefix, type);
}

/**
 * The check for a provider's callback addresses (`RAIFFEISEN_CALLBACK_IPS`, `HELEKET_CALLBACK_IPS`): addresses and
 * CIDRs, IPv4 or IPv6. An empty list allows any sender (the signature alone then decides). Throws at construction
 * on an entry that is neither, so a typo stops the service at start instead of refusing every callback.
 */
export function senderAllowlist(entries: readonly string[]): SenderCheck {
  const cleaned = entries.map((e) => e.trim()).filter((e) => e !== '');
  if (cleaned.length === 0) return () => true;
  const list = new BlockList();
  for (const entry of cleaned) addEntry(list, entry);
  return (address) => {
    const plain = MAPPED_V4.exec(address.trim())?.[1] ?? address.trim();
    const family = isIP(plain);
    if (family === 0) return false;
    return list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  };
}
