export { MailCatcher, type CaughtMail, type MailCatcherOptions } from './catcher';
