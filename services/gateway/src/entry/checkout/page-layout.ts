import { html, type SafeHtml } from './html';
import { LANGUAGES, type Language } from './language';
import { LANGUAGE_NAMES, MESSAGES } from './messages';
import type { CheckoutAssets } from './static-assets';

export interface DocumentParts {
  lang: Language;
  title: string;
  main: SafeHtml;
  assets: CheckoutAssets;
  /** Only pages that can change (a pending link) load the script; final and error pages need none. */
  withScript: boolean;
  /**
   * Where the page goes by itself, and after how long: a `<meta http-equiv="refresh">`, which works without the
   * script (a final page loads none) and which the CSP does not govern, unlike an inline script.
   */
  refresh?: { url: string; seconds: number };
}

const languageSwitch = (lang: Language): SafeHtml => html`<nav class="langs" aria-label="${MESSAGES[lang].languageNav}">
      <ul>${LANGUAGES.map((l) =>
        l === lang
          ? html`<li><a href="?lang=${l}" lang="${l}" hreflang="${l}" aria-current="true">${LANGUAGE_NAMES[l]}</a></li>`
          : html`<li><a href="?lang=${l}" lang="${l}" hreflang="${l}">${LANGUAGE_NAMES[l]}</a></li>`,
      )}</ul>
    </nav>`;

/** The whole HTML document: landmarks, the language switch and the page's own assets only. */
export function renderDocument(parts: DocumentParts): string {
  const { lang, assets } = parts;
  const t = MESSAGES[lang];
  return html`<!doctype html>
<html lang="${lang}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex, nofollow">
  <meta name="referrer" content="no-referrer">
  <meta name="color-scheme" content="light">
  ${parts.refresh ? html`<meta http-equiv="refresh" content="${parts.refresh.seconds}; url=${new URL(parts.refresh.url).href}">` : null}
  <title>${parts.title}</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${assets.style.href}">
  ${parts.withScript ? html`<script src="${assets.script.href}" defer></script>` : null}
</head>
<body>
  <header class="top">
    ${languageSwitch(lang)}
  </header>
  <main id="main">
    ${parts.main}
  </main>
  <footer class="bottom"><p>${t.footer}</p></footer>
</body>
</html>
`.value;
}

/** A page that says something went wrong, in the buyer's language, with no way to pay. */
export function renderMessagePage(lang: Language, assets: CheckoutAssets, kind: 'not_found' | 'error'): string {
  const t = MESSAGES[lang];
  const [title, text] = kind === 'not_found' ? [t.notFoundTitle, t.notFoundText] : [t.errorTitle, t.errorText];
  const main = html`<div class="card message">
      <h1>${title}</h1>
      <p>${text}</p>
    </div>`;
  return renderDocument({ lang, title, main, assets, withScript: false });
}
