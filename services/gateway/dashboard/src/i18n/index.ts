// The dashboard's languages: the words per language (en.ts, ru.ts), the context that picks one, the API's errors in words.
export { I18nContext, initialLanguage, rememberLanguage, useI18n, type I18n } from './context';
export { errorText, fieldIssueText } from './errors';
export { MESSAGES, wordFor, type Language, type Messages } from './messages';
