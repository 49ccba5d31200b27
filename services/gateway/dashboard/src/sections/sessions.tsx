import type { SessionView } from '@pl/contracts';
import { useState } from 'preact/hooks';
import { endOtherSessions, endSession, listSessions } from '../api/two-factor';
import { useI18n } from '../i18n';
import { Badge, DateTime } from '../kit/common';
import { DataTable } from '../kit/data-table';
import { ConfirmDialog } from '../kit/dialog';
import { useLoad } from '../kit/use-load';

/**
 * The user's own dashboard sessions, in every account of theirs: where and in what browser each was opened, when it
 * was last used, this one marked; any other one ended, or all others at once.
 */
export function SessionsSection() {
  const { t } = useI18n();
  const words = t.security;
  const sessions = useLoad(listSessions, 'sessions');
  const [ending, setEnding] = useState<SessionView | null>(null);
  const [endingOthers, setEndingOthers] = useState(false);
  const others = (sessions.data?.sessions ?? []).filter((s) => !s.current).length;
  return (
    <section class="card" aria-labelledby="sessions-title" data-testid="sessions">
      <h2 id="sessions-title">{words.sessionsTitle}</h2>
      <DataTable
        label={words.sessionsTitle}
        testId="sessions-table"
        load={sessions}
        items={(list) => list.sessions}
        empty={words.sessionsEmpty}
        rowKey={(s) => s.id}
        columns={[
          { header: t.ip, cell: (s) => <span class="mono address">{s.ip ?? t.none}</span> },
          { header: words.userAgent, cell: (s) => <span class="user-agent">{s.user_agent ?? t.none}</span> },
          { header: t.created, cell: (s) => <DateTime value={s.created_at} /> },
          { header: words.lastSeen, cell: (s) => <DateTime value={s.last_seen_at} /> },
          {
            header: words.sessionActions,
            cell: (s) =>
              s.current ? (
                <Badge kind="current">{words.thisSession}</Badge>
              ) : (
                <button
                  type="button"
                  class="danger"
                  onClick={() => setEnding(s)}
                  aria-label={`${words.endSession}: ${s.ip ?? ''} ${s.user_agent ?? ''}`.trim()}
                >
                  {words.endSession}
                </button>
              ),
          },
        ]}
      />
      {others > 0 && (
        <div class="actions">
          <button type="button" class="danger" onClick={() => setEndingOthers(true)}>
            {words.endOthers}
          </button>
        </div>
      )}
      {ending && (
        <ConfirmDialog
          title={words.endSessionTitle}
          body={words.endSessionConfirm}
          confirmLabel={words.endSession}
          danger
          onConfirm={async () => {
            await endSession(ending.id);
            setEnding(null);
            sessions.reload();
          }}
          onClose={() => setEnding(null)}
        />
      )}
      {endingOthers && (
        <ConfirmDialog
          title={words.endOthersTitle}
          body={words.endOthersConfirm}
          confirmLabel={words.endOthers}
          danger
          onConfirm={async () => {
            await endOtherSessions();
            setEndingOthers(false);
            sessions.reload();
          }}
          onClose={() => setEndingOthers(false)}
        />
      )}
    </section>
  );
}
