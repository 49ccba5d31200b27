import { useState } from 'preact/hooks';
import { useForm } from 'react-hook-form';
import { ApiError, call, client, present } from '../api';
import { useSession } from '../app';
import { DateTime, ErrorMessage, Loading, Notice, PageTitle, Pager, TableRegion } from '../components/common';
import { described, Field, placeApiError } from '../components/forms';
import { useLoad } from '../hooks';
import { useI18n } from '../i18n';

export function AccountPage() {
  const { t } = useI18n();
  const { me, signOut } = useSession();
  const [signOutError, setSignOutError] = useState<unknown>(null);
  return (
    <>
      <PageTitle title={t.accountTitle}>{t.accountTitle}</PageTitle>
      <dl class="fields">
        <div>
          <dt>{t.email}</dt>
          <dd data-testid="account-email">{me.email}</dd>
        </div>
        <div>
          <dt>{t.emailConfirmed}</dt>
          <dd>{me.email_confirmed ? t.yes : t.no}</dd>
        </div>
        <div>
          <dt>{t.memberSince}</dt>
          <dd>
            <DateTime value={me.created_at} />
          </dd>
        </div>
      </dl>
      <div class="actions">
        <button
          type="button"
          onClick={() => {
            setSignOutError(null);
            signOut().catch(setSignOutError);
          }}
        >
          {t.signOut}
        </button>
      </div>
      <ErrorMessage error={signOutError} />
      <ChangePassword />
      <AuditEvents />
    </>
  );
}

/** The server counts a password's length in code points. */
const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

interface PasswordForm {
  current_password: string;
  new_password: string;
  repeat: string;
}

function ChangePassword() {
  const { t } = useI18n();
  const [formError, setFormError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<PasswordForm>({ defaultValues: { current_password: '', new_password: '', repeat: '' } });
  const onValid = async (v: PasswordForm) => {
    setFormError(null);
    setDone(false);
    try {
      await call(client.POST('/api/v1/auth/password', { body: { current_password: v.current_password, new_password: v.new_password } }));
      reset();
      setDone(true);
    } catch (e) {
      // A wrong current password is a 403 that concerns that one field.
      if (e instanceof ApiError && e.code === 'common.err.forbidden')
        setError('current_password', { type: 'server', message: t.wrongPassword }, { shouldFocus: true });
      else setFormError(placeApiError(e, t, setError, ['current_password', 'new_password']));
    }
  };
  return (
    <form class="card" aria-labelledby="password-title" onSubmit={(e) => void handleSubmit(onValid)(e)} noValidate>
      <h2 id="password-title">{t.changePassword}</h2>
      <Field id="current_password" label={t.currentPassword} error={errors.current_password}>
        <input
          id="current_password"
          type="password"
          autocomplete="current-password"
          {...described('current_password', false, errors.current_password)}
          {...register('current_password', { required: t.required })}
        />
      </Field>
      <Field id="new_password" label={t.newPassword} hint={t.newPasswordHint} error={errors.new_password}>
        <input
          id="new_password"
          type="password"
          autocomplete="new-password"
          {...described('new_password', true, errors.new_password)}
          {...register('new_password', {
            required: t.required,
            validate: (v) => (codePoints(v) >= 8 ? codePoints(v) <= 256 || t.tooLong(256) : t.tooShort(8)),
          })}
        />
      </Field>
      <Field id="repeat" label={t.repeatPassword} error={errors.repeat}>
        <input
          id="repeat"
          type="password"
          autocomplete="new-password"
          {...described('repeat', false, errors.repeat)}
          {...register('repeat', { validate: (v, all) => v === all.new_password || t.passwordsDiffer })}
        />
      </Field>
      <ErrorMessage error={formError} />
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
  const [cursor, setCursor] = useState<string | null>(null);
  const events = useLoad(() => call(client.GET('/api/v1/audit-events', { params: { query: present({ limit: '20', cursor }) } })), cursor ?? '');
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">{t.auditTitle}</h2>
      {events.loading && <Loading />}
      <ErrorMessage error={events.error} onRetry={events.reload} />
      {events.data && !events.loading && events.data.audit_events.length === 0 && <p>{t.auditEmpty}</p>}
      {events.data && !events.loading && events.data.audit_events.length > 0 && (
        <TableRegion label={t.auditTitle}>
          <table data-testid="audit-table">
            <thead>
              <tr>
                <th scope="col">{t.at}</th>
                <th scope="col">{t.event}</th>
                <th scope="col">{t.subject}</th>
                <th scope="col">{t.ip}</th>
              </tr>
            </thead>
            <tbody>
              {events.data.audit_events.map((ev) => (
                <tr key={ev.id}>
                  <td>
                    <DateTime value={ev.at} />
                  </td>
                  <td>{t.auditType[ev.type] ?? ev.type}</td>
                  <td class="mono">{ev.subject ?? t.none}</td>
                  <td class="mono">{ev.ip ?? t.none}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {events.data && <Pager cursor={cursor} page={events.data} onCursor={setCursor} />}
    </section>
  );
}
