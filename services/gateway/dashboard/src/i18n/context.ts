import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { store, stored } from '../storage';
import { MESSAGES, type Language, type Messages } from './messages';

const STORAGE_KEY = 'dashboard.lang';

/** The stored choice, else the browser's languages (what it sends as Accept-Language), else Russian. */
export function initialLanguage(): Language {
  const chosen = stored(STORAGE_KEY);
  if (chosen === 'ru' || chosen === 'en') return chosen;
  for (const tag of navigator.languages) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'ru' || base === 'en') return base;
  }
  return 'ru';
}

export const rememberLanguage = (lang: Language): void => store(STORAGE_KEY, lang);

export interface I18n {
  lang: Language;
  t: Messages;
  setLang: (lang: Language) => void;
}

export const I18nContext = createContext<I18n>({ lang: 'ru', t: MESSAGES.ru, setLang: () => undefined });
/** The page's language and its words. */
export const useI18n = (): I18n => useContext(I18nContext);
