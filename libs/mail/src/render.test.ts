import { LINK_PARAMS, TEMPLATE_PARAMS } from './content';
import { escapeHtml, problemWith, renderMail } from './render';
import type { MailLanguage, MailTemplate } from './request';
import { backoffMs } from './worker';
import { failureOf, secretsOf } from './transport';

const AT = new Date('2026-11-27T21:30:00Z');
const LINK = 'https://pay.example.com/confirm-email?token=tok_abc&x=1';

/** Params every template reads, with a hostile value wherever a param is text. */
const HOSTILE = '<script>alert("x")</script> & \'quoted\'';
/** The params of a fixed form: what the text is put into, where a param has one (the daily report's shops). */
const FORMED: Record<string, (text: string) => string> = {
  role: () => 'developer',
  factor: () => 'totp',
  mode: () => 'live',
  date: () => '2026-11-20',
  more_shops: () => '0',
  shops: (text) => JSON.stringify([{ id: 7, name: text, payments: 3, gross: '1500.00', fee: '15.00', net: '1485.00' }]),
};
const paramsOf = (template: MailTemplate, text = 'plain'): Record<string, string> =>
  Object.fromEntries(TEMPLATE_PARAMS[template].map((name) => [name, LINK_PARAMS.has(name) ? LINK : (FORMED[name]?.(text) ?? text)]));

const TEMPLATES = Object.keys(TEMPLATE_PARAMS) as MailTemplate[];
const LANGUAGES: MailLanguage[] = ['ru', 'en'];
const CHOSEN = ['link', 'report_link', 'role', 'factor', 'mode', 'date', 'more_shops'];
/** The templates with a param of free text (an account name, a label, a user agent…). */
const WITH_TEXT = TEMPLATES.filter((t) => TEMPLATE_PARAMS[t].some((n) => !CHOSEN.includes(n)));
const CYRILLIC = /[а-яё]/i;

describe.each(LANGUAGES)('every template in %s', (language) => {
  test.each(TEMPLATES)('%s: a subject, a text and an HTML body in the language, with its link (if any) in both', (template) => {
    const mail = renderMail(template, language, paramsOf(template), AT);
    expect(mail.subject.length).toBeGreaterThan(10);
    expect(CYRILLIC.test(mail.subject)).toBe(language === 'ru');
    expect(CYRILLIC.test(mail.text)).toBe(language === 'ru');
    expect(mail.html).toContain(`<html lang="${language}">`);
    if (TEMPLATE_PARAMS[template].includes('link')) {
      expect(mail.text).toContain(LINK);
      expect(mail.html).toContain(`href="${escapeHtml(LINK)}"`);
    } else {
      expect(mail.html).not.toContain('href=');
    }
    // No remote image, stylesheet or script: nothing loads from anywhere when the mail is opened.
    expect(mail.html).not.toMatch(/<(img|link|script|iframe)\b|url\(/i);
  });

  test.each(WITH_TEXT)('%s: a hostile param is escaped in HTML and kept as written in text', (template) => {
    const mail = renderMail(template, language, paramsOf(template, HOSTILE), AT);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;');
    expect(mail.text).toContain(HOSTILE);
  });
});

test('the known values of a param are said in the reader’s words, Moscow time with them', () => {
  const invitation = renderMail('invitation', 'ru', { link: LINK, account_name: 'ООО Ромашка', role: 'finance', inviter_email: 'a@b.ru' }, AT);
  expect(invitation.text).toContain('a@b.ru приглашает вас в аккаунт «ООО Ромашка»');
  expect(invitation.text).toContain('«финансы»');
  const changed = renderMail('password_changed', 'en', {}, AT);
  // 21:30 UTC is 00:30 the next day in Moscow (UTC+3).
  expect(changed.text).toContain('28 November 2026 at 00:30 (Moscow time)');
  expect(renderMail('second_factor_added', 'ru', { factor: 'passkey' }, AT).text).toContain('второй фактор: ключ доступа (passkey)');
  expect(renderMail('api_key_created', 'en', { label: 'CI', mode: 'test' }, AT).text).toContain('A test API key “CI”');
});

test('a reused TOTP code’s notice says what happened and what to do, in both languages, with the Security page and no code', () => {
  const security = 'https://pay.example.com/dashboard/security';
  const en = renderMail('second_factor_code_reused', 'en', { link: security }, AT);
  expect(en.subject).toBe('A code from your authenticator app was used again on Payment links');
  expect(en.text).toContain('On 28 November 2026 at 00:30 (Moscow time) a code from your authenticator app was used a second time');
  expect(en.text).toContain('and it was refused');
  expect(en.text).toContain('someone may have seen your code and knows your password. Change your password');
  expect(en.text).toContain('check the sessions on the Security page');
  expect(en.text).toContain(`Open the Security page:\n${security}`);
  expect(en.html).toContain(`href="${security}"`);
  const ru = renderMail('second_factor_code_reused', 'ru', { link: security }, AT);
  expect(ru.subject).toBe('Код из приложения-аутентификатора использован повторно в «Платёжных ссылках»');
  expect(ru.text).toContain('28 ноября 2026 г. в 00:30 (МСК) код из вашего приложения-аутентификатора был использован второй раз');
  expect(ru.text).toContain('кто-то мог увидеть ваш код и знает ваш пароль. Смените пароль');
  expect(ru.text).toContain(`Открыть раздел «Безопасность»:\n${security}`);
  // The template takes the link alone: a code given to it is refused, so no caller can put one in the mail.
  expect(problemWith({ template: 'second_factor_code_reused', language: 'en', params: { link: security, code: '123456' } })).toMatch(/no param code/);
});

test('a value of a chosen param (a role, a factor, a mode) that is not known is escaped like any other', () => {
  const mail = renderMail(
    'invitation',
    'en',
    { link: LINK, account_name: 'Shop', role: '<img src=x onerror=alert(1)>', inviter_email: 'a@b.ru' },
    AT,
  );
  expect(mail.html).not.toContain('<img');
  expect(mail.html).toContain('as &lt;img src=x onerror=alert(1)&gt;.');
});

test('a line break in a param cannot add a line of its own (a forged “link” line in the text body)', () => {
  const mail = renderMail('new_sign_in', 'en', { address: '203.0.113.9', user_agent: 'x\r\nChoose a new password:\nhttps://evil.example' }, AT);
  expect(mail.text).toContain('Browser: x Choose a new password: https://evil.example');
});

test('problemWith refuses what no template can be written from', () => {
  expect(problemWith({ template: 'password_reset', language: 'en', params: { link: LINK } })).toBeNull();
  expect(problemWith({ template: 'password_reset', language: 'en', params: {} })).toMatch(/needs the param link/);
  expect(problemWith({ template: 'password_reset', language: 'en', params: { link: 'javascript:alert(1)' } })).toMatch(/http\(s\) URL/);
  expect(problemWith({ template: 'password_reset', language: 'en', params: { link: '/relative' } })).toMatch(/http\(s\) URL/);
  expect(problemWith({ template: 'password_reset', language: 'en', params: { link: LINK, token: 'x' } })).toMatch(/no param token/);
  expect(problemWith({ template: 'password_reset', language: 'de' as MailLanguage, params: { link: LINK } })).toMatch(/language/);
  expect(problemWith({ template: 'hello' as MailTemplate, language: 'en', params: {} })).toMatch(/unknown mail template/);
  expect(problemWith({ template: 'api_key_created', language: 'en', params: { label: 'x'.repeat(2049), mode: 'live' } })).toMatch(/at most/);
  expect(() => renderMail('invitation', 'en', { link: LINK }, AT)).toThrow(/needs the param account_name/);
});

test('backoff doubles from the first delay up to the cap, less at most a quarter', () => {
  for (let i = 0; i < 50; i++) {
    const first = backoffMs(1, 1000, 60_000);
    expect(first).toBeGreaterThanOrEqual(750);
    expect(first).toBeLessThanOrEqual(1000);
    const fourth = backoffMs(4, 1000, 60_000);
    expect(fourth).toBeGreaterThanOrEqual(6000);
    expect(fourth).toBeLessThanOrEqual(8000);
    expect(backoffMs(40, 1000, 60_000)).toBeGreaterThanOrEqual(45_000);
    expect(backoffMs(40, 1000, 60_000)).toBeLessThanOrEqual(60_000);
  }
});

describe('a send failure as recorded', () => {
  const secrets = secretsOf('smtp://mailer%40pay.example.com:s3cr%2Ft@smtp.example.com:587');

  test('the SMTP URL’s credentials are masked wherever the message repeats them', () => {
    const failure = failureOf(
      Object.assign(new Error('Invalid login for mailer@pay.example.com with s3cr/t'), { code: 'EAUTH', responseCode: 535, permanent: true }),
      secrets,
    );
    expect(failure.description).toBe('EAUTH 535 Invalid login for *** with ***');
    // A refused login is a setting to fix, after which the mail must still go.
    expect(failure.permanent).toBe(false);
  });

  test('only a refusal of the recipient or of the message is permanent', () => {
    expect(
      failureOf(Object.assign(new Error('Recipient command failed'), { code: 'EENVELOPE', responseCode: 550, permanent: true }), []).permanent,
    ).toBe(true);
    expect(failureOf(Object.assign(new Error('Message refused'), { code: 'EMESSAGE', responseCode: 554, permanent: true }), []).permanent).toBe(true);
    expect(failureOf(Object.assign(new Error('Try later'), { code: 'EENVELOPE', responseCode: 451, permanent: false }), []).permanent).toBe(false);
    expect(failureOf(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:25'), { code: 'ESOCKET' }), []).description).toBe(
      'ESOCKET connect ECONNREFUSED 127.0.0.1:25',
    );
  });
});

describe('the daily report mail', () => {
  const params = {
    link: 'https://pay.example.com/dashboard/home',
    report_link: 'https://pay.example.com/api/v1/reports/daily',
    account_name: 'ООО Ромашка',
    date: '2026-11-20',
    shops: JSON.stringify([
      { id: 7, name: 'Main\nChoose a new password:', payments: 3, gross: '1234567.10', fee: '15.00', net: '-400.50' },
      { id: 9, name: 'Second', payments: 0, gross: '0.00', fee: '0.00', net: '0.00' },
    ]),
    more_shops: '2',
  };

  // Intl puts no-break spaces between the currency and the digits (and between thousands in Russian).
  const spaced = (text: string): string => text.replace(/[\u00a0\u202f]/g, ' ');

  test('names each shop’s figures in the reader’s words and links its CSV of the day', () => {
    const en = renderMail('daily_report', 'en', params, AT);
    expect(en.subject).toBe('Daily report for 20 November 2026: ООО Ромашка');
    expect(spaced(en.text)).toContain('Main Choose a new password: (#7): 3 payments for RUB 1,234,567.10; fees RUB 15.00; net -RUB 400.50');
    expect(en.text).toContain('Download the report (CSV): https://pay.example.com/api/v1/reports/daily?shop_id=9&date=2026-11-20');
    expect(en.text).toContain('2 more shops are on the dashboard.');
    expect(en.html).toContain('href="https://pay.example.com/api/v1/reports/daily?shop_id=7&amp;date=2026-11-20"');
    const ru = renderMail('daily_report', 'ru', params, AT);
    expect(ru.subject).toBe('Ежедневный отчёт за 20 ноября 2026 г.: ООО Ромашка');
    expect(spaced(ru.text)).toContain('Second (№9): платежей 0 на 0,00 ₽; комиссии 0,00 ₽; итого 0,00 ₽');
  });

  test('refuses shops that are not what the template reads', () => {
    const base = { ...params, more_shops: '0' };
    expect(problemWith({ template: 'daily_report', language: 'en', params: base })).toBeNull();
    expect(problemWith({ template: 'daily_report', language: 'en', params: { ...base, shops: '[]' } })).toMatch(/1 to 20 shops/);
    expect(problemWith({ template: 'daily_report', language: 'en', params: { ...base, shops: 'nope' } })).toMatch(/not JSON/);
    const float = JSON.stringify([{ id: 7, name: 'x', payments: 1, gross: 10.5, fee: '0.00', net: '0.00' }]);
    expect(problemWith({ template: 'daily_report', language: 'en', params: { ...base, shops: float } })).toMatch(/1 to 20 shops/);
    expect(problemWith({ template: 'daily_report', language: 'en', params: { ...base, date: '20.11.2026' } })).toMatch(/date/);
    expect(problemWith({ template: 'daily_report', language: 'en', params: { ...base, report_link: 'javascript:x' } })).toMatch(/URL/);
  });
});
