import { calendarDay, dailyReportShops, reportUrl, rubles } from './daily-report';
import type { MailLanguage, MailTemplate } from './request';

/** What a mail says, before it is laid out as text and as HTML: every string here is plain text, never markup. */
export interface MailContent {
  subject: string;
  /** The greeting-free body: one paragraph each. */
  paragraphs: string[];
  /** The one thing the mail asks the reader to do, as a button in HTML and a bare link in text. */
  action?: { label: string; url: string };
  /** A list after the paragraphs, each item a line of text and a link of its own (the daily report's shops). */
  items?: { text: string; label: string; url: string }[];
  /** Said last, smaller: why the reader got the mail, what to do if it was not them. */
  footnote: string;
}

/** The params each template reads; a missing one is refused when the mail is enqueued. */
export const TEMPLATE_PARAMS: Readonly<Record<MailTemplate, readonly string[]>> = {
  signup_confirm: ['link'],
  signup_exists: ['link'],
  password_reset: ['link'],
  invitation: ['link', 'account_name', 'role', 'inviter_email'],
  password_changed: [],
  second_factor_added: ['factor'],
  second_factor_removed: ['factor'],
  second_factor_code_reused: ['link'],
  api_key_created: ['label', 'mode'],
  new_sign_in: ['address', 'user_agent'],
  payout_destination_added: ['kind', 'masked', 'active_at'],
  daily_report: ['link', 'report_link', 'account_name', 'date', 'shops', 'more_shops'],
};

/** The params that are links: absolute http(s) URLs (the caller's, at PUBLIC_BASE_URL), the only href a mail holds. */
export const LINK_PARAMS: ReadonlySet<string> = new Set(['link', 'report_link']);

interface Facts {
  params: Readonly<Record<string, string>>;
  /** When the change happened (the mail was enqueued), as the reader's language writes it, Moscow time. */
  when: string;
}

type Words = Record<MailTemplate, (facts: Facts) => MailContent>;

const ROLES: Record<MailLanguage, Record<string, string>> = {
  en: { owner: 'owner', admin: 'administrator', developer: 'developer', finance: 'finance', support: 'support', viewer: 'viewer' },
  ru: { owner: 'владелец', admin: 'администратор', developer: 'разработчик', finance: 'финансы', support: 'поддержка', viewer: 'наблюдатель' },
};

const FACTORS: Record<MailLanguage, Record<string, string>> = {
  en: { totp: 'authenticator app (TOTP)', passkey: 'passkey' },
  ru: { totp: 'приложение-аутентификатор (TOTP)', passkey: 'ключ доступа (passkey)' },
};

const DESTINATION_KINDS: Record<MailLanguage, Record<string, string>> = {
  en: { bank_account: 'bank account', crypto_address: 'crypto address' },
  ru: { bank_account: 'банковский счёт', crypto_address: 'криптоадрес' },
};

const MODES: Record<MailLanguage, Record<string, string>> = {
  en: { live: 'live', test: 'test' },
  ru: { live: 'боевой', test: 'тестовый' },
};

/** A known value in the reader's words; anything else as it came (it is escaped like every param). */
const named = (table: Record<string, string>, value: string | undefined): string => (value !== undefined && table[value]) || (value ?? '');

/** The shops of a daily report mail; render.ts has refused the mail already if they are not well formed. */
const shopsOf = (params: Readonly<Record<string, string>>) => {
  const shops = dailyReportShops(params);
  return typeof shops === 'string' ? [] : shops;
};

const EN_NOT_YOU = 'If this was not you, change your password now and check the Security page of your account.';
const RU_NOT_YOU = 'Если это были не вы, сразу смените пароль и проверьте раздел «Безопасность» в своём аккаунте.';

const en: Words = {
  signup_confirm: ({ params }) => ({
    subject: 'Confirm your email for Payment links',
    paragraphs: ['Thank you for signing up for Payment links. Confirm that this email address is yours to finish creating your account.'],
    action: { label: 'Confirm email', url: params.link ?? '' },
    footnote: 'The link works once, for 24 hours. If you did not sign up, ignore this mail: nothing happens without the confirmation.',
  }),
  signup_exists: ({ params }) => ({
    subject: 'Someone tried to sign up to Payment links with your email',
    paragraphs: [
      'Someone tried to create a Payment links account with this email address, but an account with it already exists.',
      'If it was you, sign in instead; if you have forgotten your password, you can reset it from the sign-in page.',
    ],
    action: { label: 'Sign in', url: params.link ?? '' },
    footnote: 'If it was not you, ignore this mail: your account has not changed.',
  }),
  password_reset: ({ params }) => ({
    subject: 'Reset your Payment links password',
    paragraphs: ['We received a request to reset the password of your Payment links account.'],
    action: { label: 'Choose a new password', url: params.link ?? '' },
    footnote: 'The link works once, for 1 hour. If you did not ask for it, ignore this mail: your password stays as it is.',
  }),
  invitation: ({ params }) => ({
    subject: `You are invited to ${params.account_name} on Payment links`,
    paragraphs: [
      `${params.inviter_email} invites you to join the account “${params.account_name}” on Payment links as ${named(ROLES.en, params.role)}.`,
    ],
    action: { label: 'Accept the invitation', url: params.link ?? '' },
    footnote: 'The invitation works once, for 72 hours. If you do not know the sender, ignore this mail.',
  }),
  password_changed: ({ when }) => ({
    subject: 'Your Payment links password was changed',
    paragraphs: [`The password of your Payment links account was changed on ${when}.`],
    footnote: EN_NOT_YOU,
  }),
  second_factor_added: ({ params, when }) => ({
    subject: 'A second factor was added to your Payment links account',
    paragraphs: [`A second factor was added to your Payment links account on ${when}: ${named(FACTORS.en, params.factor)}.`],
    footnote: EN_NOT_YOU,
  }),
  second_factor_removed: ({ params, when }) => ({
    subject: 'A second factor was removed from your Payment links account',
    paragraphs: [`A second factor was removed from your Payment links account on ${when}: ${named(FACTORS.en, params.factor)}.`],
    footnote: EN_NOT_YOU,
  }),
  second_factor_code_reused: ({ params, when }) => ({
    subject: 'A code from your authenticator app was used again on Payment links',
    paragraphs: [
      `On ${when} a code from your authenticator app was used a second time to confirm a sign-in or an action in your Payment links account, and it was refused: each code works once.`,
      'If it was not you, someone may have seen your code and knows your password. Change your password (on the Account page) and check the sessions on the Security page, ending any you do not know.',
    ],
    action: { label: 'Open the Security page', url: params.link ?? '' },
    footnote: 'If it was you (a code typed twice, say), nothing needs doing. We send this mail at most once an hour.',
  }),
  api_key_created: ({ params, when }) => ({
    subject: 'A new API key was created in your Payment links account',
    paragraphs: [`A ${named(MODES.en, params.mode)} API key “${params.label}” was created in your Payment links account on ${when}.`],
    footnote: 'If this was not you or your team, revoke the key on the API keys page and change your password.',
  }),
  payout_destination_added: ({ params, when }) => ({
    subject: 'A payout destination was added to your Payment links account',
    paragraphs: [
      `A ${named(DESTINATION_KINDS.en, params.kind)} ${params.masked} was added as a payout destination of your Payment links account on ${when}.`,
      `Payouts can be sent to it from ${params.active_at} (Moscow time).`,
    ],
    footnote: 'If nobody in your team added it, remove it on the Payouts page before then and change your password.',
  }),
  daily_report: ({ params }) => {
    const day = params.date ?? '';
    const more = Number(params.more_shops);
    return {
      subject: `Daily report for ${calendarDay(day, 'en')}: ${params.account_name}`,
      paragraphs: [
        `The figures of the shops of “${params.account_name}” for ${calendarDay(day, 'en')} (Moscow time), live mode. Each shop's report of that day (CSV) is linked below.`,
        ...(more > 0 ? [`${more} more shops are on the dashboard.`] : []),
      ],
      items: shopsOf(params).map((shop) => ({
        text: `${shop.name} (#${shop.id}): ${shop.payments} payments for ${rubles(shop.gross, 'en')}; fees ${rubles(shop.fee, 'en')}; net ${rubles(shop.net, 'en')}`,
        label: 'Download the report (CSV)',
        url: reportUrl(params.report_link ?? '', shop.id, day),
      })),
      action: { label: 'Open the dashboard', url: params.link ?? '' },
      footnote: 'You get this mail because you turned on the daily report mail for this account. Turn it off on the Account page of the dashboard.',
    };
  },
  new_sign_in: ({ params, when }) => ({
    subject: 'New sign-in to your Payment links account',
    paragraphs: [
      `Your Payment links account was signed in to from an address it has not been used from before, on ${when}.`,
      `Address: ${params.address}`,
      `Browser: ${params.user_agent}`,
    ],
    footnote: EN_NOT_YOU,
  }),
};

const ru: Words = {
  signup_confirm: ({ params }) => ({
    subject: 'Подтвердите email для «Платёжных ссылок»',
    paragraphs: ['Спасибо за регистрацию в «Платёжных ссылках». Подтвердите, что этот адрес ваш, чтобы закончить создание аккаунта.'],
    action: { label: 'Подтвердить email', url: params.link ?? '' },
    footnote: 'Ссылка действует один раз в течение 24 часов. Если вы не регистрировались, просто не обращайте внимания на это письмо.',
  }),
  signup_exists: ({ params }) => ({
    subject: 'Кто-то пытался зарегистрироваться в «Платёжных ссылках» с вашим email',
    paragraphs: [
      'Кто-то пытался создать аккаунт «Платёжных ссылок» с этим адресом, но аккаунт с ним уже есть.',
      'Если это были вы, просто войдите; если вы забыли пароль, его можно сбросить на странице входа.',
    ],
    action: { label: 'Войти', url: params.link ?? '' },
    footnote: 'Если это были не вы, не обращайте внимания на это письмо: ваш аккаунт не изменился.',
  }),
  password_reset: ({ params }) => ({
    subject: 'Сброс пароля «Платёжных ссылок»',
    paragraphs: ['Мы получили запрос на сброс пароля вашего аккаунта «Платёжных ссылок».'],
    action: { label: 'Задать новый пароль', url: params.link ?? '' },
    footnote: 'Ссылка действует один раз в течение 1 часа. Если вы не запрашивали сброс, не обращайте внимания на письмо: пароль останется прежним.',
  }),
  invitation: ({ params }) => ({
    subject: `Приглашение в аккаунт ${params.account_name} в «Платёжных ссылках»`,
    paragraphs: [
      `${params.inviter_email} приглашает вас в аккаунт «${params.account_name}» в «Платёжных ссылках» с ролью «${named(ROLES.ru, params.role)}».`,
    ],
    action: { label: 'Принять приглашение', url: params.link ?? '' },
    footnote: 'Приглашение действует один раз в течение 72 часов. Если вы не знаете отправителя, не обращайте внимания на письмо.',
  }),
  password_changed: ({ when }) => ({
    subject: 'Пароль «Платёжных ссылок» изменён',
    paragraphs: [`Пароль вашего аккаунта «Платёжных ссылок» изменён ${when}.`],
    footnote: RU_NOT_YOU,
  }),
  second_factor_added: ({ params, when }) => ({
    subject: 'К аккаунту «Платёжных ссылок» добавлен второй фактор',
    paragraphs: [`В ваш аккаунт «Платёжных ссылок» ${when} добавлен второй фактор: ${named(FACTORS.ru, params.factor)}.`],
    footnote: RU_NOT_YOU,
  }),
  second_factor_removed: ({ params, when }) => ({
    subject: 'Из аккаунта «Платёжных ссылок» удалён второй фактор',
    paragraphs: [`Из вашего аккаунта «Платёжных ссылок» ${when} удалён второй фактор: ${named(FACTORS.ru, params.factor)}.`],
    footnote: RU_NOT_YOU,
  }),
  second_factor_code_reused: ({ params, when }) => ({
    subject: 'Код из приложения-аутентификатора использован повторно в «Платёжных ссылках»',
    paragraphs: [
      `${when} код из вашего приложения-аутентификатора был использован второй раз для подтверждения входа или действия в аккаунте «Платёжных ссылок» и отклонён: каждый код действует один раз.`,
      'Если это были не вы, кто-то мог увидеть ваш код и знает ваш пароль. Смените пароль (на странице «Аккаунт») и проверьте сеансы в разделе «Безопасность», завершив незнакомые.',
    ],
    action: { label: 'Открыть раздел «Безопасность»', url: params.link ?? '' },
    footnote: 'Если это были вы (например, ввели код дважды), ничего делать не нужно. Это письмо приходит не чаще раза в час.',
  }),
  api_key_created: ({ params, when }) => ({
    subject: 'В аккаунте «Платёжных ссылок» создан новый API-ключ',
    paragraphs: [`В вашем аккаунте «Платёжных ссылок» ${when} создан ${named(MODES.ru, params.mode)} API-ключ «${params.label}».`],
    footnote: 'Если это сделали не вы и не ваша команда, отзовите ключ на странице API-ключей и смените пароль.',
  }),
  payout_destination_added: ({ params, when }) => ({
    subject: 'В аккаунт «Платёжных ссылок» добавлено назначение выплат',
    paragraphs: [
      `В ваш аккаунт «Платёжных ссылок» ${when} добавлен ${named(DESTINATION_KINDS.ru, params.kind)} ${params.masked} для выплат.`,
      `Выплаты на него станут возможны с ${params.active_at} (по московскому времени).`,
    ],
    footnote: 'Если никто из вашей команды его не добавлял, удалите его на странице «Выплаты» до этого времени и смените пароль.',
  }),
  daily_report: ({ params }) => {
    const day = params.date ?? '';
    const more = Number(params.more_shops);
    return {
      subject: `Ежедневный отчёт за ${calendarDay(day, 'ru')}: ${params.account_name}`,
      paragraphs: [
        `Показатели магазинов аккаунта «${params.account_name}» за ${calendarDay(day, 'ru')} (по московскому времени), боевой режим. Отчёт каждого магазина за этот день (CSV) — по ссылке ниже.`,
        ...(more > 0 ? [`Ещё магазинов в личном кабинете: ${more}.`] : []),
      ],
      items: shopsOf(params).map((shop) => ({
        text: `${shop.name} (№${shop.id}): платежей ${shop.payments} на ${rubles(shop.gross, 'ru')}; комиссии ${rubles(shop.fee, 'ru')}; итого ${rubles(shop.net, 'ru')}`,
        label: 'Скачать отчёт (CSV)',
        url: reportUrl(params.report_link ?? '', shop.id, day),
      })),
      action: { label: 'Открыть личный кабинет', url: params.link ?? '' },
      footnote:
        'Вы получили это письмо, потому что включили ежедневный отчёт для этого аккаунта. Отключить его можно на странице «Аккаунт» в личном кабинете.',
    };
  },
  new_sign_in: ({ params, when }) => ({
    subject: 'Новый вход в аккаунт «Платёжных ссылок»',
    paragraphs: [
      `В ваш аккаунт «Платёжных ссылок» вошли с адреса, с которого раньше не входили, ${when}.`,
      `Адрес: ${params.address}`,
      `Браузер: ${params.user_agent}`,
    ],
    footnote: RU_NOT_YOU,
  }),
};

const WORDS: Record<MailLanguage, Words> = { en, ru };

/** Moscow time, as the platform shows every time (docs/product-decisions.md). */
function moscowTime(at: Date, language: MailLanguage): string {
  const text = new Intl.DateTimeFormat(language === 'ru' ? 'ru-RU' : 'en-GB', {
    timeZone: 'Europe/Moscow',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(at);
  return `${text} ${language === 'ru' ? '(МСК)' : '(Moscow time)'}`;
}

/** What the mail says, in the reader's language; `at` is when the change that caused it happened. */
export function contentOf(template: MailTemplate, language: MailLanguage, params: Readonly<Record<string, string>>, at: Date): MailContent {
  return WORDS[language][template]({ params, when: moscowTime(at, language) });
}
