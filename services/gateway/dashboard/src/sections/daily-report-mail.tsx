import { useState } from 'preact/hooks';
import { getPreferences, setDailyReportMail } from '../api/account';
import { useI18n } from '../i18n';
import { ErrorMessage, Notice } from '../kit/common';
import { useAction, useLoad } from '../kit/use-load';

/**
 * The member's own opt-in to the daily report mail (docs/adr/0049), in the session's account: a checkbox saved as it
 * is ticked. Shown to the roles that read money, who alone may have it.
 */
export function DailyReportMail() {
  const { t } = useI18n();
  const words = t.dailyReportMail;
  const preferences = useLoad(getPreferences, 'preferences');
  const [saved, setSaved] = useState<boolean | null>(null);
  // The box shows the reader's tick at once; a refused save puts it back as the server has it.
  const [ticked, setTicked] = useState<boolean | undefined>(undefined);
  const save = useAction(async (on: boolean) => {
    setTicked(on);
    setSaved(null);
    try {
      const answer = await setDailyReportMail(on);
      preferences.setData(answer);
      setSaved(answer.daily_report_mail);
    } finally {
      setTicked(undefined);
    }
  });
  const on = ticked ?? preferences.data?.daily_report_mail;
  return (
    <section class="card" aria-labelledby="daily-report-mail-title" data-testid="daily-report-mail">
      <h2 id="daily-report-mail-title">{words.title}</h2>
      <ErrorMessage error={preferences.error} onRetry={preferences.reload} />
      {on !== undefined && (
        <div class="field checks">
          <label>
            <input
              type="checkbox"
              checked={on}
              aria-busy={save.busy}
              aria-describedby="daily-report-mail-hint"
              onChange={(e) => save.run(e.currentTarget.checked)}
            />
            {words.label}
          </label>
          <p class="hint" id="daily-report-mail-hint">
            {words.hint}
          </p>
        </div>
      )}
      <ErrorMessage error={save.error} />
      {saved !== null && !save.busy && <Notice>{saved ? words.on : words.off}</Notice>}
    </section>
  );
}
