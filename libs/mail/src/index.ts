export type { MailLanguage, MailRequest, MailTemplate } from './request';
export { enqueueMail, type Queryable } from './enqueue';
export { mailEnv, type MailSettings } from './config';
export { renderMail, type RenderedMail } from './render';
export { MailQueue } from './queue';
export { smtpSender, type MailSender, type OutgoingMail } from './transport';
export { MailWorker, NO_MAIL_CRASH_POINTS, type MailCrashPoint, type MailCrashPoints, type MailWorkerOptions } from './worker';
export { DAILY_REPORT_MAIL_SHOPS_MAX, type DailyReportShop } from './daily-report';
