import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * Global unicast IPv6 (RFC 4291): everything outside it (the deprecated IPv4-compatible `::a.b.c.d`, the
 * discard prefix, unallocated space) is never a merchant's server, though ipaddr.js calls much of it `unicast`.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [IPv6, number];
/** The NAT64 well-known prefix (RFC 6052): the IPv4 address is the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96') as [IPv6, number];

const v4FromBits = (high: number, low: number): IPv4 => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address carries traffic to, for the forms that embed one: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), NAT64 well-known prefix, 6to4 (`2002:AABB:CCDD::`)
 * and Teredo (server and obfuscated client). `null` when the address embeds none; an empty list never occurs.
 */
function embeddedIPv4(address: IPv6): IPv4[] | null {
  const [, p1 = 0, p2 = 0, p3 = 0, , , p6 = 0, p7 = 0] = address.parts; // ipaddr.js always gives eight 16-bit parts
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [v4FromBits(p6, p7)];
    case 'rfc6052':
      // The local-use prefix 64:ff9b:1::/48 (RFC 8215) has an operator-chosen layout and only exists inside
      // a private network: it embeds nothing we could judge, so it is not public (the caller refuses it).
      return address.match(NAT64_WELL_KNOWN) ? [v4FromBits(p6, p7)] : null;
    case '6to4':
      return [v4FromBits(p1, p2)];
    case 'teredo':
      // Bits 32..63 are the Teredo server; the last 32 bits are the client's address, inverted.
      return [v4FromBits(p2, p3), v4FromBits(~p6 & 0xffff, ~p7 & 0xffff)];
    default:
      return null;
  }
}

const isPublicV4 = (address: IPv4): boolean => address.range() === 'unicast';

function isPublicV6(address: IPv6): boolean {
  const embedded = embeddedIPv4(address);
  if (embedded !== null) return embedded.every(isPublicV4);
  return address.range() === 'unicast' && address.match(GLOBAL_UNICAST_V6);
}

/**
 * True when an IP literal (as a URL's host or DNS gives it: dotted-quad IPv4 or IPv6, without brackets) is a
 * public unicast address a webhook may be sent to. Private, loopback, link-local, CGNAT, unique-local,
 * site-local, multicast, documentation, benchmarking and reserved ranges are not (ipaddr.js's range table), and
 * an IPv6 address that embeds an IPv4 one (mapped, NAT64, 6to4, Teredo) is judged by what it embeds. Anything
 * that is not an IP literal is not public either.
 */
export function isPublicAddress(text: string): boolean {
  // node:net accepts only the canonical spellings, so a lookup result or a WHATWG host is judged as written,
  // never re-read with ipaddr.js's looser legacy IPv4 forms.
  const family = isIP(text);
  if (family === 0) return false;
  const address = ipaddr.parse(text);
  return family === 4 ? isPublicV4(address as IPv4) : isPublicV6(address as IPv6);
}
