import { useI18n } from '../i18n';
import { Notice, PageTitle } from '../kit/common';
import { PasskeysSection } from '../sections/passkeys';
import { SessionsSection } from '../sections/sessions';
import { TwoFactorSection } from '../sections/two-factor';
import { useSession } from '../session';

/**
 * Security (every role: a member's second factors and sessions are their own): TOTP and recovery codes, passkeys,
 * sessions. A member of an account that requires a second factor and has none is sent here (app.tsx).
 */
export function SecurityPage() {
  const { t } = useI18n();
  const { me } = useSession();
  const none = !me.two_factor.totp && me.two_factor.passkeys === 0;
  return (
    <>
      <PageTitle title={t.security.title}>{t.security.title}</PageTitle>
      {none && <Notice>{t.security.noFactor}</Notice>}
      <TwoFactorSection />
      <PasskeysSection />
      {/* Anew once a first factor is on: a member who had to enrol was refused the list until then. */}
      <SessionsSection key={none ? 'enrolling' : 'enrolled'} />
    </>
  );
}
