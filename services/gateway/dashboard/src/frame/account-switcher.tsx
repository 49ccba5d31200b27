import { useState } from 'preact/hooks';
import { useI18n } from '../i18n';
import { ErrorMessage } from '../kit/common';
import { useAction } from '../kit/use-load';
import { useSession } from '../session';

/**
 * In the header of a user who belongs to more than one account: which one the session acts for, and the way to another
 * (POST auth/switch, then every page loads anew for it). A choice and a button, not a select that acts on change: a
 * keyboard user going through the options does not switch accounts on the way.
 */
export function AccountSwitcher() {
  const { t } = useI18n();
  const { me, switchAccount } = useSession();
  const [chosen, setChosen] = useState(me.account.merchant_id);
  const go = useAction(switchAccount);
  if (me.memberships.length < 2) return null;
  return (
    <form
      class="account-switch"
      data-testid="account-switch"
      onSubmit={(e) => {
        e.preventDefault();
        if (chosen !== me.account.merchant_id) go.run(chosen);
      }}
    >
      <label for="account-select">{t.accountSwitchLabel}</label>
      <select id="account-select" value={chosen} onChange={(e) => setChosen(e.currentTarget.value)}>
        {me.memberships.map((m) => (
          <option key={m.merchant_id} value={m.merchant_id}>
            {t.membershipOption(m.name, t.roles[m.role])}
          </option>
        ))}
      </select>
      <button type="submit" disabled={go.busy || chosen === me.account.merchant_id}>
        {t.switchAccount}
      </button>
      <ErrorMessage error={go.error} />
    </form>
  );
}
