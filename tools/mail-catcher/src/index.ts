export { MailCatcher, type MailCatcherOptions } from './catcher';
export type { CaughtMail } from './caught-mail';
