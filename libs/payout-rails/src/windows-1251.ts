/**
 * The 1C exchange format's encodings. Files are written in windows-1251 (`Кодировка=Windows`), the one every
 * Russian bank's client reads; a file may also say `Кодировка=DOS` (code page 866), which the format allows.
 */
import iconv from 'iconv-lite';

/** The text as windows-1251 bytes; a character outside it would become '?', so check it first. */
export const encodeWindows1251 = (text: string): Buffer => iconv.encode(text, 'win1251');

export const decodeWindows1251 = (bytes: Buffer): string => iconv.decode(bytes, 'win1251');

export const decodeDos866 = (bytes: Buffer): string => iconv.decode(bytes, 'cp866');

/**
 * Every character windows-1251 holds: its 256 bytes decoded, less the one byte (0x98) it leaves undefined, which
 * decodes to U+FFFD. A lookup, because iconv-lite replaces what it cannot encode silently and a round trip per value
 * costs seconds over a batch of thousands of orders.
 */
const WINDOWS_1251_CHARACTERS = new Set(decodeWindows1251(Buffer.from(Array.from({ length: 256 }, (_, byte) => byte))));
WINDOWS_1251_CHARACTERS.delete('\ufffd');

/** The first character windows-1251 cannot hold (an emoji, a Chinese character, most accented Latin letters), or null. */
export function firstUnencodableCharacter(text: string): string | null {
  for (const character of text) {
    if (!WINDOWS_1251_CHARACTERS.has(character)) return character;
  }
  return null;
}
