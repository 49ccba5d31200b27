import { useState } from 'preact/hooks';
import { changePassword, listAuditEvents } from '../api/account';
import { ApiError } from '../api/client';
import { useI18n, wordFor } from '../i18n';
import { DateTime, ErrorMessage, Notice, PageTitle } from '../kit/common';
import { DataTable } from '../kit/data-table';
import { Facts } from '../kit/fields';
import { newPasswordRules } from '../kit/credentials';
import { TextField, useApiForm } from '../kit/forms';
import { useAction, usePagedLoad } from '../kit/use-load';
import { setRequireTwoFactor } from '../api/two-factor';
import { useSession } from '../session';
import { Allowed } from '../session';
import { DailyReportMail } from '../sections/daily-report-mail';

export function AccountPage() {
  const { t } = useI18n();
  const { me, signOut } = useSession();
  const leave = useAction(signOut);
  return (
    <>
      <PageTitle title={t.accountTitle}>{t.accountTitle}</PageTitle>
      <Facts
        facts={[
          { label: t.email, value: me.email, testId: 'account-email' },
          { label: t.accountSwitchLabel, value: me.memberships.find((m) => m.merchant_id === me.account.merchant_id)?.name ?? t.none },
          { label: t.yourRole, value: t.roles[me.account.role], testId: 'account-role' },
          { label: t.emailConfirmed, value: me.email_confirmed ? t.yes : t.no },
          { label: t.memberSince, value: <DateTime value={me.created_at} /> },
        ]}
      />
      <div class="actions">
        <button type="button" onClick={() => leave.run()} disabled={leave.busy}>
          {t.signOut}
        </button>
      </div>
      <ErrorMessage error={leave.error} />
      <ChangePassword />
      <Allowed to="read_money">
        <DailyReportMail />
      </Allowed>
      <Allowed to="account_policy">
        <TwoFactorPolicy />
      </Allowed>
      <Allowed to="read_audit">
        <AuditEvents />
      </Allowed>
    </>
  );
}

interface PasswordForm {
  current_password: string;
  new_password: string;
  repeat: string;
}

function ChangePassword() {
  const { t } = useI18n();
  const [done, setDone] = useState(false);
  const form = useApiForm<PasswordForm>(
    { current_password: '', new_password: '', repeat: '' },
    ['current_password', 'new_password'],
    async (v, { reset, setError }) => {
      setDone(false);
      try {
        await changePassword({ current_password: v.current_password, new_password: v.new_password });
      } catch (e) {
        // A wrong current password is a 403 that concerns that one field.
        if (!(e instanceof ApiError && e.code === 'common.err.forbidden')) throw e;
        setError('current_password', { type: 'server', message: t.wrongPassword }, { shouldFocus: true });
        return;
      }
      reset();
      setDone(true);
    },
  );
  const { errors, isSubmitting } = form.formState;
  const password = (id: keyof PasswordForm, autocomplete: string) => ({ id, type: 'password' as const, autocomplete, error: errors[id] });
  return (
    <form class="card" aria-labelledby="password-title" onSubmit={form.onSubmit} noValidate>
      <h2 id="password-title">{t.changePassword}</h2>
      <TextField
        {...password('current_password', 'current-password')}
        label={t.currentPassword}
        field={form.register('current_password', { required: t.required })}
      />
      <TextField
        {...password('new_password', 'new-password')}
        label={t.newPassword}
        hint={t.newPasswordHint}
        field={form.register('new_password', newPasswordRules(t))}
      />
      <TextField
        {...password('repeat', 'new-password')}
        label={t.repeatPassword}
        field={form.register('repeat', { validate: (v, all) => v === all.new_password || t.passwordsDiffer })}
      />
      <ErrorMessage error={form.formError} />
      <div class="actions">
        <button type="submit" class="primary" disabled={isSubmitting}>
          {t.changePassword}
        </button>
      </div>
      {done && <Notice>{t.passwordChanged}</Notice>}
    </form>
  );
}

function AuditEvents() {
  const { t } = useI18n();
  const events = usePagedLoad(listAuditEvents, 'audit');
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">{t.auditTitle}</h2>
      <DataTable
        label={t.auditTitle}
        testId="audit-table"
        load={events}
        items={(page) => page.audit_events}
        empty={t.auditEmpty}
        paging={events.paging}
        rowKey={(ev) => ev.id}
        columns={[
          { header: t.at, cell: (ev) => <DateTime value={ev.at} /> },
          { header: t.event, cell: (ev) => wordFor(t.auditType, ev.type) },
          { header: t.subject, cell: (ev) => <span class="mono">{ev.subject ?? t.none}</span> },
          { header: t.ip, cell: (ev) => <span class="mono">{ev.ip ?? t.none}</span> },
        ]}
      />
    </section>
  );
}

/**
 * The owner's policy: every member needs a second factor (a member without one can then only enroll). The API has no
 * read of the policy yet, so the section offers both ways and says which one is now in force after a change.
 */
function TwoFactorPolicy() {
  const { t } = useI18n();
  const words = t.security;
  const [now, setNow] = useState<boolean | null>(null);
  const change = useAction(async (require: boolean) => {
    setNow((await setRequireTwoFactor(require)).require_two_factor);
  });
  return (
    <section class="card" aria-labelledby="policy-title" data-testid="two-factor-policy">
      <h2 id="policy-title">{words.policyTitle}</h2>
      <p>{words.policyIntro}</p>
      <div class="actions">
        <button type="button" onClick={() => change.run(true)} disabled={change.busy}>
          {words.policyRequire}
        </button>
        <button type="button" onClick={() => change.run(false)} disabled={change.busy}>
          {words.policyRelax}
        </button>
      </div>
      <ErrorMessage error={change.error} />
      {now !== null && <Notice>{now ? words.policyRequired : words.policyNotRequired}</Notice>}
    </section>
  );
}
