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
 * The first character windows-1251 cannot hold (an emoji, a Chinese character, a Latin letter with a diacritic it
 * lacks), or null when it holds them all. iconv-lite replaces such a character silently, so a round trip finds it.
 */
export function firstUnencodableCharacter(text: string): string | null {
  for (const character of text) {
    if (decodeWindows1251(encodeWindows1251(character)) !== character) return character;
  }
  return null;
}
