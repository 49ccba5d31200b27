export type { MailLanguage, MailRequest, MailTemplate } from './request';
export { enqueueMail, type Queryable } from './enqueue';
