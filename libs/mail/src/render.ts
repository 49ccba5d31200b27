import { contentOf, LINK_PARAMS, TEMPLATE_PARAMS, type MailContent } from './content';
import { dailyReportShops } from './daily-report';
import type { MailLanguage, MailRequest, MailTemplate } from './request';

/** A mail ready for SMTP: both bodies say the same. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const TEMPLATES = new Set(Object.keys(TEMPLATE_PARAMS));
const LANGUAGES: ReadonlySet<string> = new Set<MailLanguage>(['ru', 'en']);
/** A param longer than this is no account name, label or user agent the platform keeps. */
const MAX_PARAM_LENGTH = 2048;
/** The daily report's shops (JSON, at most 20 of them) are the one longer param. */
const maxLengthOf = (name: string): number => (name === 'shops' ? 16_384 : MAX_PARAM_LENGTH);

/**
 * Why a mail cannot be written, or null: an unknown template or language, a param it needs missing, one it does not
 * know, or a link that is not an absolute http(s) URL (a `javascript:` href must never reach an inbox).
 */
export function problemWith(mail: Pick<MailRequest, 'template' | 'language' | 'params'>): string | null {
  if (!TEMPLATES.has(mail.template)) return `unknown mail template ${JSON.stringify(mail.template)}`;
  if (!LANGUAGES.has(mail.language)) return `unknown mail language ${JSON.stringify(mail.language)}`;
  const wanted = TEMPLATE_PARAMS[mail.template];
  for (const name of wanted) if (typeof mail.params[name] !== 'string') return `${mail.template} needs the param ${name}`;
  for (const [name, value] of Object.entries(mail.params)) {
    if (!wanted.includes(name)) return `${mail.template} has no param ${name}`;
    if (typeof value !== 'string' || value.length > maxLengthOf(name))
      return `${mail.template}: ${name} is not a string of at most ${maxLengthOf(name)}`;
    if (LINK_PARAMS.has(name) && !isWebUrl(value)) return `${mail.template}: ${name} is not an absolute http(s) URL`;
  }
  if (mail.template === 'daily_report') {
    const shops = dailyReportShops(mail.params);
    if (typeof shops === 'string') return shops;
  }
  return null;
}

function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !/\s/.test(text);
  } catch {
    return false;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value: every character that could open markup or close a quote is an entity. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

/** Control characters (line breaks included) in a param would break a line of text or a header. */
const oneLine = (text: string): string => text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ');

function asText(content: MailContent): string {
  const parts = [...content.paragraphs];
  for (const item of content.items ?? []) parts.push(`${item.text}\n${item.label}: ${item.url}`);
  if (content.action) parts.push(`${content.action.label}:\n${content.action.url}`);
  parts.push(`--\n${content.footnote}`);
  return `${parts.join('\n\n')}\n`;
}

// Inline styles only, no remote images or fonts: mail clients drop <style> and <link>, and a remote image is a
// tracking pixel that also breaks offline. The button's URL is repeated as text for clients that hide links.
function asHtml(content: MailContent, language: MailLanguage): string {
  const p = (text: string, style = 'margin:0 0 16px'): string => `<p style="${style}">${escapeHtml(text)}</p>`;
  const action = content.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(content.action.url)}" style="display:inline-block;padding:12px 20px;background:#1f4ed8;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:bold">${escapeHtml(content.action.label)}</a></p>` +
      p(content.action.url, 'margin:0 0 16px;font-size:13px;color:#555555;word-break:break-all')
    : '';
  const items = content.items?.length
    ? `<ul style="margin:0 0 16px;padding-left:20px">\n${content.items
        .map(
          (item) =>
            `<li style="margin:0 0 12px">${escapeHtml(item.text)}<br><a href="${escapeHtml(item.url)}" style="color:#1f4ed8">${escapeHtml(item.label)}</a></li>`,
        )
        .join('\n')}\n</ul>`
    : '';
  return `<!doctype html>
<html lang="${language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#1a1a1a">
<div style="max-width:560px;margin:0 auto;padding:24px;background:#ffffff;border-radius:8px">
${content.paragraphs.map((text) => p(text)).join('\n')}
${items}
${action}
${p(content.footnote, 'margin:24px 0 0;font-size:13px;color:#555555')}
</div>
</body>
</html>
`;
}

/**
 * The mail as its reader gets it, in their language, as text and as HTML. Params are untrusted (an account name
 * may be `<script>`): HTML escapes every one, and line breaks in them are flattened. Throws on a mail
 * {@link problemWith} refuses.
 */
export function renderMail(template: MailTemplate, language: MailLanguage, params: Readonly<Record<string, string>>, at: Date): RenderedMail {
  const problem = problemWith({ template, language, params });
  if (problem) throw new Error(problem);
  const flat = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, oneLine(v)]));
  const content = contentOf(template, language, flat, at);
  return { subject: content.subject, text: asText(content), html: asHtml(content, language) };
}
