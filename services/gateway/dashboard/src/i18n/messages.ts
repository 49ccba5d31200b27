import { en, type Messages } from './en';
import { ru } from './ru';

export type { Messages };
export type Language = 'ru' | 'en';

/** Each language's catalogue: one file per language (en.ts gives the shape, ru.ts must match it key for key). */
export const MESSAGES: Readonly<Record<Language, Messages>> = { ru, en };

/** The word for a value the server sent (a status, a type), or the value itself when the catalogue has none. */
export const wordFor = (words: Readonly<Record<string, string>>, value: string): string =>
  (words as Readonly<Partial<Record<string, string>>>)[value] ?? value;
