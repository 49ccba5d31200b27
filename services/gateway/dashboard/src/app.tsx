import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Link, Redirect, Route, Router, Switch, useLocation, useSearch } from 'wouter-preact';
import { setEnrollRequiredHandler, setRequestMode, setUnauthorizedHandler } from './api/client';
import { I18nContext, initialLanguage, MESSAGES, rememberLanguage, useI18n, type I18n, type Language, type Messages } from './i18n';
import { keepFocusOnNextTitle, PageTitle } from './kit/common';
import { initialMode, ModeContext, rememberMode, useMode, type Mode, type ModeState } from './mode';
import { AccountPage } from './pages/account';
import { ApiKeysPage } from './pages/api-keys';
import { BalancePage } from './pages/balance';
import { ConfirmEmailPage } from './pages/confirm-email';
import { CreateLinkPage } from './pages/create-link';
import { EventsPage } from './pages/events';
import { ForgotPasswordPage } from './pages/forgot-password';
import { HomePage } from './pages/home';
import { InvitationPage } from './pages/invitation';
import { LinkDetailPage } from './pages/link-detail';
import { LinksPage } from './pages/links';
import { LoginPage } from './pages/login';
import { PayoutDestinationsPage } from './pages/payout-destinations';
import { PayoutsPage } from './pages/payouts';
import { ResetPasswordPage } from './pages/reset-password';
import { SecurityPage } from './pages/security';
import { ShopDetailPage } from './pages/shop-detail';
import { ShopsPage } from './pages/shops';
import { UnresolvedPaymentsPage } from './pages/unresolved-payments';
import { SignUpPage } from './pages/sign-up';
import { TeamPage } from './pages/team';
import { mayOpenPage } from './roles';
import { AccountSwitcher } from './frame/account-switcher';
import { EmailBanner } from './frame/email-banner';
import { SignInLinks } from './frame/sign-in-links';
import { StepUpPrompt } from './frame/step-up';
import { pageAfterSignIn } from './return-to';
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
            {/* The pages of mail links and of a person without a session (docs/dashboard.md: the mails' addresses). */}
            <Route path="/signup">
              <PublicLayout>
                <SignUpPage />
              </PublicLayout>
            </Route>
            <Route path="/confirm-email">
              <PublicLayout>
                <ConfirmEmailPage />
              </PublicLayout>
            </Route>
            <Route path="/forgot-password">
              <PublicLayout>
                <ForgotPasswordPage />
              </PublicLayout>
            </Route>
            <Route path="/reset-password">
              <PublicLayout>
                <ResetPasswordPage />
              </PublicLayout>
            </Route>
            <Route path="/invitation">
              <PublicLayout>
                <InvitationPage />
              </PublicLayout>
            </Route>
            <Route>
              {/* Keyed by the account: a switch to another one renders every page anew, loading that account's data. */}
              <SignedIn>{(me) => <Shell key={me.account.merchant_id} me={me} />}</SignedIn>
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
  const [, navigate] = useLocation();
  const search = useSearch();
  return (
    <PublicLayout>
      {/* The page asked for before signing in, or the signed-in frame's `/`: each member's landing page (Home, or the links for a role without money). */}
      <LoginPage onSignedIn={() => navigate(pageAfterSignIn(search), { replace: true })} />
      <SignInLinks />
    </PublicLayout>
  );
}

/**
 * A page for a person without a session (sign-in, sign-up, mail links). A 401 here is an answer the page shows, not
 * a reason to leave for the sign-in page, as it is behind the sign-in.
 */
function PublicLayout({ children }: { children: ComponentChildren }) {
  const { t } = useI18n();
  useEffect(() => setUnauthorizedHandler(() => undefined), []);
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
        {children}
      </main>
    </>
  );
}

/** The main menu: each page's address and the key of its name. */
const NAV: readonly (readonly [string, keyof Messages & `nav${string}`])[] = [
  ['/home', 'navHome'],
  ['/links', 'navLinks'],
  ['/balance', 'navBalance'],
  ['/payouts', 'navPayouts'],
  ['/payout-destinations', 'navPayoutDestinations'],
  ['/unresolved-payments', 'navUnresolved'],
  ['/events', 'navEvents'],
  ['/shops', 'navShops'],
  ['/api-keys', 'navApiKeys'],
  ['/team', 'navTeam'],
  ['/security', 'navSecurity'],
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
  const [, navigate] = useLocation();
  // A page's read refused for want of a second factor the account requires: the Security page, to enroll one.
  useEffect(() => {
    setEnrollRequiredHandler(() => navigate('/security', { replace: true }));
    return () => setEnrollRequiredHandler(() => undefined);
  }, [navigate]);
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
              {NAV.filter(([href]) => mayOpenPage(me.account.role, href)).map(([href, words]) => (
                <li key={href}>
                  <NavLink href={href}>{t[words]}</NavLink>
                </li>
              ))}
            </ul>
          </nav>
          <div class="head-controls">
            <AccountSwitcher />
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
        <EmailBanner />
        <Switch>
          <Route path="/">
            <Redirect to={landingPage(me)} replace />
          </Route>
          <Route path="/home" component={HomePage} />
          <Route path="/links" component={LinksPage} />
          <Route path="/links/new" component={CreateLinkPage} />
          <Route path="/links/:id">{(params: { id: string }) => <LinkDetailPage id={params.id} />}</Route>
          <Route path="/balance" component={BalancePage} />
          <Route path="/payouts" component={PayoutsPage} />
          <Route path="/payout-destinations" component={PayoutDestinationsPage} />
          <Route path="/unresolved-payments" component={UnresolvedPaymentsPage} />
          <Route path="/events" component={EventsPage} />
          <Route path="/shops" component={ShopsPage} />
          <Route path="/shops/:id">{(params: { id: string }) => <ShopDetailPage id={params.id} />}</Route>
          <Route path="/api-keys" component={ApiKeysPage} />
          <Route path="/team" component={TeamPage} />
          <Route path="/security" component={SecurityPage} />
          <Route path="/account" component={AccountPage} />
          <Route>
            <NotFound />
          </Route>
        </Switch>
      </main>
      <StepUpPrompt />
    </>
  );
}

/** Where a member lands after signing in: Home, whose figures are money, or the links for a role that reads none. */
const landingPage = (me: MeView): string => (mayOpenPage(me.account.role, '/home') ? '/home' : '/links');

function NotFound() {
  const { t } = useI18n();
  return (
    <>
      <PageTitle title={t.notFoundTitle}>{t.notFoundTitle}</PageTitle>
      <p>{t.notFoundBody}</p>
    </>
  );
}
