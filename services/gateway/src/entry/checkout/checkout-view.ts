import { CRYPTO_NETWORKS, type BuyerLinkView } from '@pl/contracts';
import { buyerFee, formatCrypto, formatDateTime, formatRemaining, formatRub, networkLabel } from './format';
import { html, isolated, type SafeHtml } from './html';
import type { Language } from './language';
import { MESSAGES, type Messages } from './messages';
import { qrSvg } from './qr-svg';

const SBP = 'SBP';
/** Schemes a wallet or bank app opens; anything else from a provider is not offered as a link. */
const APP_LINK = /^(https:|bitcoin:|ethereum:|tron:|ton:)/i;

const isSbp = (view: BuyerLinkView): boolean => view.network === SBP;
const hasSelection = (view: BuyerLinkView): boolean => view.network !== null && view.deposit_address !== null;

function amounts(view: BuyerLinkView, lang: Language, t: Messages): SafeHtml {
  const fee = buyerFee(view.payer_amount, view.amount);
  const total = view.status === 'pending' ? t.total : view.status === 'paid' ? t.totalPaid : t.totalFinal;
  return html`<dl class="amounts">
        ${
          fee === null
            ? null
            : html`<div><dt>${t.orderAmount}</dt><dd>${formatRub(view.amount, lang)}</dd></div>
        <div><dt>${t.fee}</dt><dd data-testid="fee">${formatRub(fee, lang)}</dd></div>`
        }
        <div class="total"><dt>${total}</dt><dd data-testid="payer-amount">${formatRub(view.payer_amount, lang)}</dd></div>
      </dl>`;
}

function countdown(view: BuyerLinkView, lang: Language, t: Messages, now: Date): SafeHtml | null {
  if (view.expires_at === null) return null;
  const left = new Date(view.expires_at).getTime() - now.getTime();
  return html`<div class="deadline">
        <p class="timer"><span id="countdown-label">${t.timeLeft}</span>
          <span id="countdown" role="timer" aria-labelledby="countdown-label" data-expires-at="${view.expires_at}">${formatRemaining(left, lang)}</span></p>
        <p class="muted"><time datetime="${view.expires_at}">${t.payBefore(formatDateTime(view.expires_at, lang))}</time></p>
      </div>`;
}

function methodOption(value: string, label: SafeHtml, checked: boolean): SafeHtml {
  const id = `method-${value.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`;
  return html`<div class="option">
            <input type="radio" name="method" id="${id}" value="${value}"${checked ? html` checked` : null}>
            <label for="${id}">${label}</label>
          </div>`;
}

function methods(view: BuyerLinkView, t: Messages): SafeHtml {
  const current = isSbp(view) ? 'sbp' : view.network;
  // Only what the shop has on and the provider takes now; the order stays the platform's.
  const networks = CRYPTO_NETWORKS.filter((n) => view.methods.crypto_networks.includes(n));
  const none = !view.methods.sbp && networks.length === 0;
  return html`<section class="methods" aria-labelledby="method-heading">
      <form id="method-form" novalidate>
        <fieldset>
          <legend><h2 id="method-heading">${t.chooseMethod}</h2></legend>
          ${view.methods.sbp ? methodOption('sbp', html`<span class="name">${t.sbpName}</span> <span class="hint">${t.sbpHint}</span>`, current === 'sbp') : null}
          ${
            networks.length === 0
              ? null
              : html`<p class="group-label" id="crypto-label">${t.cryptoGroup}</p>
          <div class="group" role="group" aria-labelledby="crypto-label">
          ${networks.map((n) => {
            const { coin, chain } = networkLabel(n);
            return methodOption(n, html`<span class="name">${coin}</span> <span class="hint">${chain}</span>`, current === n);
          })}
          </div>`
          }
          ${none ? html`<p class="form-error" data-testid="no-methods">${t.noMethods}</p>` : null}
        </fieldset>
        ${view.fee_payer === 'merchant' ? null : html`<p class="muted">${t.feeDependsOnMethod}</p>`}
        <p class="form-error" id="method-error" role="alert"></p>
        ${none ? null : html`<button type="submit" class="primary">${hasSelection(view) ? t.changeMethod : t.showDetails}</button>`}
        <noscript><p class="form-error">${t.noScript}</p></noscript>
      </form>
    </section>`;
}

function copyable(id: string, label: string, value: string, shown: string, t: Messages): SafeHtml {
  return html`<div class="field">
          <dt id="${id}-label">${label}</dt>
          <dd><code id="${id}" class="value">${shown}</code>
            <button type="button" class="copy" data-copy="${value}" aria-label="${t.copy}: ${label}">${t.copy}</button></dd>
        </div>`;
}

/** Heleket's `wrong_amount_waiting`: what is left to send, above the details (the address stays the same). */
function progressNote(view: BuyerLinkView, t: Messages): SafeHtml | null {
  const progress = view.payment_progress;
  if (progress?.status !== 'partially_paid' || progress.remaining_crypto_amount === null || view.payer_currency === null) return null;
  const shown = formatCrypto(progress.remaining_crypto_amount, view.payer_currency);
  return html`<div class="remainder" role="status" data-testid="remainder">
        <p><strong>${t.remainderHeading}</strong></p>
        <p>${t.remainderText(shown)}</p>
        <dl class="fields">${copyable('remaining', t.remainingToSend, progress.remaining_crypto_amount, shown, t)}</dl>
      </div>`;
}

async function details(view: BuyerLinkView, lang: Language, t: Messages): Promise<SafeHtml> {
  const address = view.deposit_address ?? '';
  const sbp = isSbp(view);
  const { coin, chain } = networkLabel(view.network ?? '');
  const methodName = sbp ? t.sbpName : `${coin} · ${chain}`;
  const qr = view.qr === null ? null : await qrSvg(view.qr, t.qrLabel(methodName));
  const crypto =
    view.payer_crypto_amount !== null && view.payer_currency !== null
      ? { amount: view.payer_crypto_amount, shown: formatCrypto(view.payer_crypto_amount, view.payer_currency) }
      : null;
  const fields =
    sbp || crypto === null
      ? html`<div class="field"><dt>${t.total}</dt><dd class="value strong" data-testid="send-amount">${formatRub(view.payer_amount, lang)}</dd></div>
        ${copyable('deposit', t.sbpPaymentId, address, address, t)}`
      : html`${copyable('send-amount', t.amountToSend, crypto.amount, crypto.shown, t)}
        <div class="field"><dt>${t.network}</dt><dd class="value plain" data-testid="network">${coin} · ${chain}</dd></div>
        ${copyable('deposit', t.depositAddress, address, address, t)}`;
  const instructions = sbp || crypto === null ? t.sbpInstructions : t.cryptoInstructions(crypto.shown, chain);
  // A bank app opens an NSPK link on the phone it runs on: the link is for phones (narrow or touch screens, see
  // checkout.css), while a computer's buyer scans the QR. A wallet link is offered wherever it is given.
  const appLink =
    view.qr !== null && APP_LINK.test(view.qr)
      ? html`<p${sbp ? html` class="phone-only"` : null}><a class="button secondary" href="${view.qr}" rel="noreferrer" data-testid="app-link">${
          sbp ? t.openInApp : t.openInWallet
        }</a></p>`
      : null;
  const warning = sbp ? null : html`<p class="warning" role="note" data-testid="network-warning">${t.networkWarning(chain)}</p>`;
  return html`<section class="details" id="details" aria-labelledby="details-heading" data-method="${sbp ? 'sbp' : view.network}">
      <h2 id="details-heading" tabindex="-1">${t.detailsHeading}</h2>
      ${progressNote(view, t)}
      <p>${instructions}</p>
      ${warning}
      ${qr === null ? null : html`<figure class="qr">${qr}</figure>`}
      <dl class="fields">
        ${fields}
      </dl>
      ${appLink}
      <p class="waiting" data-testid="waiting"><span class="pulse" aria-hidden="true"></span>${
        view.payment_progress?.status === 'confirming' ? t.confirming : t.waiting
      }</p>
      ${view.livemode ? null : simulator(t)}
    </section>`;
}

/**
 * A test link's stand-in for the provider: the buyer (the merchant, testing) decides the outcome. Only after a
 * method is chosen, as a real provider only answers then; links refuses the call for a live link anyway.
 */
function simulator(t: Messages): SafeHtml {
  return html`<div class="simulate" role="group" aria-labelledby="simulate-label" data-testid="simulate">
        <p class="group-label" id="simulate-label">${t.simulateLabel}</p>
        <button type="button" class="simulate-paid" data-simulate="paid">${t.simulatePaid}</button>
        <button type="button" class="simulate-failed" data-simulate="failed">${t.simulateFailed}</button>
        <p class="form-error" id="simulate-error" role="alert"></p>
      </div>`;
}

/** Says on every state of a test link's page, final ones included, that no real money moves. */
function testModeBanner(t: Messages): SafeHtml {
  return html`<div class="test-banner" role="note" aria-labelledby="test-mode-title" data-testid="test-mode-banner">
      <p><strong id="test-mode-title">${t.testModeTitle}</strong> ${t.testModeText}</p>
    </div>`;
}

/** How long a paid page with a return_url stays before it sends the buyer back to the shop. */
export const RETURN_AFTER_SECONDS = 5;

/**
 * The way back to the merchant's site once the link is over. A paid page also goes there by itself: the
 * server-rendered page through a `<meta http-equiv="refresh">` (page-layout.ts), a page whose script swapped the
 * paid panel in through `data-return-after-ms`. The URL passed the contract (https, or http where allowed).
 */
function returnLink(view: BuyerLinkView, t: Messages): SafeHtml | null {
  if (view.return_url === null) return null;
  const auto = view.status === 'paid';
  return html`<p class="return">
        ${auto ? html`<span class="muted" data-testid="returning">${t.returningToShop}</span>` : null}
        <a class="button secondary" href="${view.return_url}" rel="noreferrer" data-testid="return-to-shop"${
          auto ? html` data-return-after-ms="${RETURN_AFTER_SECONDS * 1000}"` : null
        }>${t.returnToShop}</a>
      </p>`;
}

function finalView(view: BuyerLinkView, lang: Language, t: Messages): SafeHtml {
  const paid = view.status === 'paid';
  const [heading, text] =
    view.status === 'paid'
      ? [t.paidHeading, null]
      : view.status === 'expired'
        ? [t.expiredHeading, t.expiredText]
        : view.status === 'canceled'
          ? [t.canceledHeading, t.canceledText]
          : [t.failedHeading, t.failedText];
  const paidAt = view.paid_at ?? view.updated_at;
  return html`<section class="final ${paid ? 'final-ok' : 'final-stop'}" aria-labelledby="final-heading" data-testid="final-${view.status}">
      <div class="badge" aria-hidden="true">${paid ? '✓' : '×'}</div>
      <h2 id="final-heading" tabindex="-1">${heading}</h2>
      ${
        paid
          ? html`<p>${t.paidText}</p><p class="paid-at">${t.paidAt}: <time datetime="${paidAt}" data-testid="paid-at">${formatDateTime(paidAt, lang)}</time></p>`
          : html`<p>${text}</p><p class="muted">${t.noPayment}</p>`
      }
      ${returnLink(view, t)}
    </section>`;
}

/**
 * What the provider last said of the payment, as the page's script compares it with the status poll's view: a
 * payment confirming or part paid changes no field of the link, yet the buyer must see it.
 */
const progressKey = (view: BuyerLinkView): string =>
  view.payment_progress === null ? '' : `${view.payment_progress.status}:${view.payment_progress.remaining_crypto_amount ?? ''}`;

/**
 * The part of the page that changes with the link: summary, and either the method choice and the
 * payment details (pending) or the final word. The script swaps it whole when the link changes, so
 * the server is the only place that knows how a link looks.
 */
export async function renderPanel(view: BuyerLinkView, lang: Language, now: Date): Promise<SafeHtml> {
  const t = MESSAGES[lang];
  const pending = view.status === 'pending';
  return html`<div id="checkout" class="card" data-status="${view.status}" data-updated-at="${view.updated_at}" data-progress="${progressKey(view)}" data-server-now="${now.toISOString()}">
    <section class="summary" aria-labelledby="shop-name">
      <p class="eyebrow">${t.paymentTo}</p>
      <h1 id="shop-name">${isolated(view.shop_name)}</h1>
      ${view.description ? html`<p class="description"><span class="sr-only">${t.description}: </span>${isolated(view.description)}</p>` : null}
      ${amounts(view, lang, t)}
      ${pending ? countdown(view, lang, t, now) : null}
    </section>
    ${pending ? methods(view, t) : null}
    ${pending && hasSelection(view) ? await details(view, lang, t) : null}
    ${pending ? null : finalView(view, lang, t)}
  </div>`;
}

/** Polling period of the page's script while the link is pending. */
const STATUS_POLL_MS = 2000;

/**
 * The page's main region: a test link's banner, the panel, a live region outside it (so announcements survive a
 * swap), and the script's settings and texts as data attributes (a strict CSP allows no inline script).
 */
export async function renderCheckoutMain(view: BuyerLinkView, lang: Language, now: Date): Promise<SafeHtml> {
  const t = MESSAGES[lang];
  return html`<div id="checkout-root" data-link-id="${view.id}" data-lang="${lang}" data-poll-ms="${STATUS_POLL_MS}"
      data-msg-copied="${t.copied}" data-msg-copy-failed="${t.copyFailed}" data-msg-selecting="${t.selecting}"
      data-msg-select-failed="${t.selectFailed}" data-msg-choose-first="${t.chooseFirst}"
      data-msg-method-unavailable="${t.methodUnavailableNow}" data-msg-method-refused="${t.methodRefused}"
      data-msg-status-changed="${t.statusChanged}" data-msg-day="${lang === 'ru' ? 'д' : 'd'}"${
        view.livemode ? null : html` data-msg-simulating="${t.simulating}" data-msg-simulate-failed="${t.simulateError}"`
      }>
    ${view.livemode ? null : testModeBanner(t)}
    ${await renderPanel(view, lang, now)}
    <p id="announcer" class="sr-only" role="status" aria-live="polite"></p>
  </div>`;
}
