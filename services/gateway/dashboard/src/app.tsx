import { useEffect, useMemo, useState } from 'preact/hooks';
import { Link, Redirect, Route, Router, Switch, useLocation } from 'wouter-preact';
import { setRequestMode } from './api/client';
import { I18nContext, initialLanguage, MESSAGES, rememberLanguage, useI18n, type I18n, type Language, type Messages } from './i18n';
import { keepFocusOnNextTitle, PageTitle } from './kit/common';
import { initialMode, ModeContext, rememberMode, useMode, type Mode, type ModeState } from './mode';
import { AccountPage } from './pages/account';
import { ApiKeysPage } from './pages/api-keys';
import { BalancePage } from './pages/balance';
import { CreateLinkPage } from './pages/create-link';
import { EventsPage } from './pages/events';
import { LinkDetailPage } from './pages/link-detail';
import { LinksPage } from './pages/links';
import { LoginPage } from './pages/login';
import { ShopDetailPage } from './pages/shop-detail';
import { ShopsPage } from './pages/shops';
import { UnresolvedPaymentsPage } from './pages/unresolved-payments';
import { SignedIn } from './session';
import type { MeView } from './types';

export function App() {
  const [lang, setLangState] = useState<Language>(initialLanguage);
  const i18n = useMemo<I18n>(
    () => ({
      lang,
      t: MESSAGES[lang],
      setLang: (l) => {
        rememberLanguage(l);
        setLangState(l);
      },
    }),
    [lang],
  );
  // The API layer learns the mode before the first page renders, so the first calls already carry it.
  const [mode, setModeState] = useState<Mode>(() => {
    const m = initialMode();
    setRequestMode(m);
    return m;
  });
  const modeState = useMemo<ModeState>(
    () => ({
      mode,
      setMode: (m) => {
        setRequestMode(m);
        rememberMode(m);
        setModeState(m);
      },
    }),
    [mode],
  );
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  return (
    <I18nContext.Provider value={i18n}>
      <ModeContext.Provider value={modeState}>
        <Router base="/dashboard">
          <Switch>
            <Route path="/login">
              <LoginLayout />
            </Route>
            <Route>
              <SignedIn>{(me) => <Shell me={me} />}</SignedIn>
            </Route>
          </Switch>
        </Router>
      </ModeContext.Provider>
    </I18nContext.Provider>
  );
}

function LanguageSwitch() {
  const { t, lang, setLang } = useI18n();
  const other: Language = lang === 'ru' ? 'en' : 'ru';
  return (
    <button type="button" class="lang-switch" lang={other} aria-label={t.switchLanguageLabel} onClick={() => setLang(other)}>
      {t.switchLanguage}
    </button>
  );
}

/**
 * Live / test, in the header of every signed-in page. A switch (role `switch`, its state announced as on/off) named for
 * test mode, so "on" means test; the track beside the words shows the state to the eye.
 */
function ModeSwitch() {
  const { t } = useI18n();
  const { mode, setMode } = useMode();
  const test = mode === 'test';
  return (
    <button
      type="button"
      role="switch"
      aria-checked={test}
      class="mode-switch"
      data-testid="mode-switch"
      onClick={() => {
        keepFocusOnNextTitle();
        setMode(test ? 'live' : 'test');
      }}
    >
      <span class="track" aria-hidden="true">
        <span class="knob" />
      </span>
      {t.testModeSwitch}
    </button>
  );
}

function LoginLayout() {
  const { t } = useI18n();
  const [, navigate] = useLocation();
  return (
    <>
      <a class="skip" href="#main">
        {t.skipToContent}
      </a>
      <header class="topbar">
        <span class="brand">{t.appName}</span>
        <LanguageSwitch />
      </header>
      <main id="main" class="narrow">
        <LoginPage onSignedIn={() => navigate('/links', { replace: true })} />
      </main>
    </>
  );
}

/** The main menu: each page's address and the key of its name. */
const NAV: readonly (readonly [string, keyof Messages & `nav${string}`])[] = [
  ['/links', 'navLinks'],
  ['/balance', 'navBalance'],
  ['/unresolved-payments', 'navUnresolved'],
  ['/events', 'navEvents'],
  ['/shops', 'navShops'],
  ['/api-keys', 'navApiKeys'],
  ['/account', 'navAccount'],
];

function NavLink({ href, children }: { href: string; children: string }) {
  const [location] = useLocation();
  const current = location === href || location.startsWith(`${href}/`);
  return (
    <Link href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

function Shell({ me }: { me: MeView }) {
  const { t } = useI18n();
  const { mode } = useMode();
  // The accent of test mode (styles.css) covers the whole document, the page's background included.
  useEffect(() => {
    document.documentElement.dataset.mode = mode;
    return () => {
      delete document.documentElement.dataset.mode;
    };
  }, [mode]);
  return (
    <>
      <a class="skip" href="#main">
        {t.skipToContent}
      </a>
      <header class="site-head">
        <div class="topbar">
          <span class="brand">{t.appName}</span>
          <nav aria-label={t.navLabel}>
            <ul>
              {NAV.map(([href, words]) => (
                <li key={href}>
                  <NavLink href={href}>{t[words]}</NavLink>
                </li>
              ))}
            </ul>
          </nav>
          <div class="head-controls">
            <ModeSwitch />
            <LanguageSwitch />
          </div>
        </div>
        {mode === 'test' && (
          <p class="test-banner" data-testid="test-banner">
            <strong>{t.testModeBanner}</strong> {t.testModeBannerMore}
          </p>
        )}
      </header>
      {/* Keyed by the mode: a switch re-renders the page from scratch, so every list, filter and cursor is the new mode's. */}
      <main id="main" key={mode}>
        {!me.email_confirmed && <p class="banner">{t.emailNotConfirmed}</p>}
        <Switch>
          <Route path="/">
            <Redirect to="/links" replace />
          </Route>
          <Route path="/links" component={LinksPage} />
          <Route path="/links/new" component={CreateLinkPage} />
          <Route path="/links/:id">{(params: { id: string }) => <LinkDetailPage id={params.id} />}</Route>
          <Route path="/balance" component={BalancePage} />
          <Route path="/unresolved-payments" component={UnresolvedPaymentsPage} />
          <Route path="/events" component={EventsPage} />
          <Route path="/shops" component={ShopsPage} />
          <Route path="/shops/:id">{(params: { id: string }) => <ShopDetailPage id={params.id} />}</Route>
          <Route path="/api-keys" component={ApiKeysPage} />
          <Route path="/account" component={AccountPage} />
          <Route>
            <NotFound />
          </Route>
        </Switch>
      </main>
    </>
  );
}

function NotFound() {
  const { t } = useI18n();
  return (
    <>
      <PageTitle title={t.notFoundTitle}>{t.notFoundTitle}</PageTitle>
      <p>{t.notFoundBody}</p>
    </>
  );
}
