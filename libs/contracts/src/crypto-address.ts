import type { CryptoNetwork } from './checkout';
import { keccak_256 } from '@noble/hashes/sha3';
import { bech32, bech32m } from 'bech32';
import bs58check from 'bs58check';
import crc16xmodem from 'crc/crc16xmodem';

/**
 * Address checks for a refund's destination: the format and the checksum each network's wallets verify, so a
 * mistyped address is refused before money leaves rather than lost on chain. Mainnet formats only: the sandbox
 * hands out mainnet-style addresses in test mode too.
 */

/** Base58check decode, or null when the text is not base58 or its 4-byte checksum is wrong. */
function base58check(text: string): Uint8Array | null {
  try {
    return bs58check.decode(text);
  } catch {
    return null;
  }
}

/** TRON: base58check of 0x41 and a 20-byte account, `T…` in text. */
function isTronAddress(text: string): boolean {
  const bytes = base58check(text);
  return bytes !== null && bytes.length === 21 && bytes[0] === 0x41;
}

/** EIP-55: the case of each hex letter is the matching nibble of keccak256(lowercase address) being 8 or more. */
function hasEip55Checksum(hex40: string): boolean {
  const lower = hex40.toLowerCase();
  const hash = Buffer.from(keccak_256(lower)).toString('hex');
  for (let i = 0; i < 40; i += 1) {
    const c = hex40.charAt(i);
    if (c >= '0' && c <= '9') continue;
    const upper = parseInt(hash.charAt(i), 16) >= 8;
    if ((c === c.toUpperCase()) !== upper) return false;
  }
  return true;
}

/** Ethereum: `0x` and 40 hex digits; all one case carries no checksum, mixed case must be EIP-55. */
function isEthereumAddress(text: string): boolean {
  const m = /^0x([0-9a-fA-F]{40})$/.exec(text);
  if (!m?.[1]) return false;
  const hex = m[1];
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return hasEip55Checksum(hex);
}

/** TON workchains an address may name: basechain 0 and masterchain −1 (0xff in the user-friendly form). */
const TON_WORKCHAIN_BYTES = new Set([0x00, 0xff]);
/** User-friendly tags: bounceable 0x11, non-bounceable 0x51, either with the test-only flag 0x80. */
const TON_TAGS = new Set([0x11, 0x51, 0x91, 0xd1]);

/**
 * TON: raw `0:` + 64 hex, or user-friendly 48 characters of base64url (wallets also print standard base64) over
 * tag, workchain, 32-byte account and a CRC16-XMODEM of those 34 bytes.
 */
function isTonAddress(text: string): boolean {
  if (/^0:[0-9a-fA-F]{64}$/.test(text)) return true;
  if (!/^[A-Za-z0-9_+/-]{48}$/.test(text)) return false;
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 36) return false;
  if (!TON_TAGS.has(bytes[0] ?? -1) || !TON_WORKCHAIN_BYTES.has(bytes[1] ?? -1)) return false;
  return crc16xmodem(bytes.subarray(0, 34)) === bytes.readUInt16BE(34);
}

/** Bech32 (segwit v0) or bech32m (v1+) `bc1…`, with the witness program lengths BIP-141/BIP-350 allow. */
function isSegwitAddress(text: string): boolean {
  if (!/^bc1/i.test(text)) return false;
  const v0 = bech32.decodeUnsafe(text);
  // BIP-350: witness version 0 carries the bech32 checksum, every later version the bech32m one.
  const decoded = v0?.words[0] === 0 ? v0 : bech32m.decodeUnsafe(text);
  if (decoded?.prefix !== 'bc') return false;
  const [version, ...data] = decoded.words;
  if (version === undefined || version > 16) return false;
  if (version === 0 && decoded !== v0) return false;
  const program = bech32.fromWordsUnsafe(data);
  if (!program) return false;
  return version === 0 ? program.length === 20 || program.length === 32 : program.length >= 2 && program.length <= 40;
}

/** Legacy Bitcoin: base58check of version 0x00 (P2PKH, `1…`) or 0x05 (P2SH, `3…`) and a 20-byte hash. */
function isBase58BitcoinAddress(text: string): boolean {
  const bytes = base58check(text);
  return bytes !== null && bytes.length === 21 && (bytes[0] === 0x00 || bytes[0] === 0x05);
}

const isBitcoinAddress = (text: string): boolean => isSegwitAddress(text) || isBase58BitcoinAddress(text);

const CHECKS: Readonly<Record<CryptoNetwork, (text: string) => boolean>> = {
  'USDT-TRC20': isTronAddress,
  'USDT-ERC20': isEthereumAddress,
  'ETH-ETH': isEthereumAddress,
  'USDT-TON': isTonAddress,
  'TON-TON': isTonAddress,
  'BTC-BTC': isBitcoinAddress,
};

/** The networks a destination is judged for: a link paid on any other network (SBP) refunds through the provider. */
export const isCryptoNetwork = (network: string | null): network is CryptoNetwork => network !== null && network in CHECKS;

/**
 * The account part of an address (hex, lower case) for the burn check: the 20 bytes of an Ethereum, TRON or legacy
 * Bitcoin address, a segwit program, a TON account. Only called on an address its network's check accepted.
 */
function accountOf(network: CryptoNetwork, address: string): string {
  switch (network) {
    case 'USDT-ERC20':
    case 'ETH-ETH':
      return address.slice(2).toLowerCase();
    case 'USDT-TON':
    case 'TON-TON':
      return address.startsWith('0:')
        ? address.slice(2).toLowerCase()
        : Buffer.from(address.replace(/-/g, '+').replace(/_/g, '/'), 'base64').subarray(2, 34).toString('hex');
    case 'USDT-TRC20':
      return Buffer.from(base58check(address)?.subarray(1) ?? []).toString('hex');
    case 'BTC-BTC': {
      if (!/^bc1/i.test(address)) return Buffer.from(base58check(address)?.subarray(1) ?? []).toString('hex');
      const decoded = bech32.decodeUnsafe(address) ?? bech32m.decodeUnsafe(address);
      return Buffer.from(bech32.fromWordsUnsafe(decoded?.words.slice(1) ?? []) ?? []).toString('hex');
    }
  }
}

/**
 * Accounts nobody holds the key of, well formed, checksum and all: the zero account of every network, and the
 * "dead" accounts people burn tokens to (`0x…dEaD`, `0xdEaD…42069`). A refund sent there is gone for good.
 */
const UNSPENDABLE = /^(?:0+|0+dead|dead0{16}42069420694206942069)$/;

/** Whether `address` is a well-formed address of `network`, checksum included, that money sent to can be spent from. */
export const isAddressOf = (network: CryptoNetwork, address: string): boolean =>
  CHECKS[network](address) && !UNSPENDABLE.test(accountOf(network, address));
