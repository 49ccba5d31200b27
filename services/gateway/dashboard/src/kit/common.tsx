import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { errorText, useI18n } from '../i18n';
import { formatDate, formatRub } from '../format';

export function Loading() {
  const { t } = useI18n();
  return (
    <p class="loading" role="status">
      {t.loading}
    </p>
  );
}

/** An error of a call, in the page's language, announced to screen readers; with a retry when it can help. */
export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useI18n();
  if (error === null || error === undefined) return null;
  return (
    <div class="error" role="alert">
      <span>{errorText(t, error)}</span>
      {onRetry && (
        <button type="button" class="link-button" onClick={onRetry}>
          {t.retry}
        </button>
      )}
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

let firstPage = true;

/**
 * The next page title to mount leaves the focus where it is: the mode switch re-renders the page in place, and its
 * user (on the switch, with its state just announced) has not navigated anywhere.
 */
export function keepFocusOnNextTitle(): void {
  firstPage = true;
}

/** The page's h1 and document title; after a client-side navigation it takes the focus, as a page load would. */
export function PageTitle({ children, title }: { children: ComponentChildren; title: string }) {
  const { t } = useI18n();
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${t.appName}`;
  }, [title, t.appName]);
  useEffect(() => {
    if (firstPage) firstPage = false;
    else ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** A wire date, short (the year only when it is not this one), in Moscow time; the full date on hover. */
export function DateTime({ value }: { value: string | null }) {
  const { t, lang } = useI18n();
  if (!value) return <>{t.none}</>;
  return (
    <time dateTime={value} title={formatDate(value, lang, 'full')}>
      {formatDate(value, lang)}
    </time>
  );
}

export function Money({ value }: { value: string }) {
  const { lang } = useI18n();
  return <span class="money">{formatRub(value, lang)}</span>;
}

export function Badge({ kind, children }: { kind: string; children: ComponentChildren }) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}

/**
 * "Test" beside a link made in test mode. The page shows one mode's links only, so in test mode every link has it; it
 * is there so that a test link never passes for a live one, wherever it is shown.
 */
export function TestBadge({ livemode }: { livemode: boolean }) {
  const { t } = useI18n();
  if (livemode) return null;
  return <Badge kind="mode-test">{t.testBadge}</Badge>;
}
