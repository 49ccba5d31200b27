import { useState } from 'preact/hooks';
import { changeMemberRole, invite, listInvitations, listMembers, removeMember, revokeInvitation } from '../api/team';
import { useI18n } from '../i18n';
import { DateTime, ErrorMessage, Notice, PageTitle } from '../kit/common';
import { DataTable } from '../kit/data-table';
import { Facts } from '../kit/fields';
import { ConfirmDialog } from '../kit/dialog';
import { Field, TextField, useApiForm } from '../kit/forms';
import { useLoad } from '../kit/use-load';
import { ACCOUNT_ROLES, mayManageRole, roleMay, ROLE_ACTIONS, rolesGivenBy, type RoleAction } from '../roles';
import { Allowed, useSession } from '../session';
import type { AccountRole, InvitationView, MemberView } from '../types';

/**
 * The account's team: its members (role change, removal) and the invitations still waiting (invite, revoke). For owners
 * and admins; an admin sees no button for an owner's membership, as the server refuses it. Opened by another role, the
 * lists show the server's refusal.
 */
export function TeamPage() {
  const { t } = useI18n();
  const { me } = useSession();
  const actor = me.account.role;
  const members = useLoad(listMembers, 'members');
  const invitations = useLoad(listInvitations, 'invitations');
  const [notice, setNotice] = useState<string | null>(null);
  const [changing, setChanging] = useState<MemberView | null>(null);
  const [removing, setRemoving] = useState<MemberView | null>(null);
  const [revoking, setRevoking] = useState<InvitationView | null>(null);
  const mine = (role: AccountRole) => mayManageRole(actor, role);
  return (
    <>
      <PageTitle title={t.teamTitle}>{t.teamTitle}</PageTitle>
      {notice !== null && <Notice>{notice}</Notice>}
      <RoleGuide />
      <section aria-labelledby="members-title">
        <h2 id="members-title">{t.membersTitle}</h2>
        <DataTable
          label={t.membersTitle}
          testId="members-table"
          load={members}
          items={(list) => list.members}
          empty={t.membersEmpty}
          rowKey={(m) => m.user_id}
          columns={[
            { header: t.email, cell: (m) => (m.user_id === me.user_id ? `${m.email} (${t.youMark})` : m.email) },
            { header: t.role, cell: (m) => t.roles[m.role] },
            { header: t.joined, cell: (m) => <DateTime value={m.joined_at} /> },
            {
              header: t.actions,
              cell: (m) =>
                mine(m.role) && (
                  <span class="row-actions">
                    <button type="button" onClick={() => setChanging(m)} aria-label={`${t.changeRole}: ${m.email}`}>
                      {t.changeRole}
                    </button>
                    <button type="button" class="danger" onClick={() => setRemoving(m)} aria-label={`${t.removeMember}: ${m.email}`}>
                      {t.removeMember}
                    </button>
                  </span>
                ),
            },
          ]}
        />
      </section>
      <section aria-labelledby="invitations-title">
        <h2 id="invitations-title">{t.invitationsTitle}</h2>
        <Allowed to="manage_members">
          <InviteForm
            actor={actor}
            onInvited={(email) => {
              setNotice(t.invitationSent(email));
              invitations.reload();
            }}
          />
        </Allowed>
        <DataTable
          label={t.invitationsTitle}
          testId="invitations-table"
          load={invitations}
          items={(list) => list.invitations}
          empty={t.invitationsEmpty}
          rowKey={(i) => i.id}
          columns={[
            { header: t.email, cell: (i) => i.email },
            { header: t.role, cell: (i) => t.roles[i.role] },
            { header: t.invitedAt, cell: (i) => <DateTime value={i.created_at} /> },
            { header: t.expires, cell: (i) => <DateTime value={i.expires_at} /> },
            {
              header: t.actions,
              cell: (i) =>
                mine(i.role) && (
                  <button type="button" class="danger" onClick={() => setRevoking(i)} aria-label={`${t.revokeInvitation}: ${i.email}`}>
                    {t.revokeInvitation}
                  </button>
                ),
            },
          ]}
        />
      </section>
      {changing && (
        <ChangeRoleDialog
          member={changing}
          roles={rolesGivenBy(actor)}
          onClose={() => setChanging(null)}
          onChanged={() => {
            setNotice(t.roleChanged(changing.email));
            setChanging(null);
            members.reload();
          }}
        />
      )}
      {removing && (
        <ConfirmDialog
          title={t.removeMemberTitle}
          body={t.removeMemberBody(removing.email)}
          confirmLabel={t.removeMemberYes}
          danger
          onConfirm={async () => {
            await removeMember(removing.user_id);
            setRemoving(null);
            setNotice(null);
            members.reload();
          }}
          onClose={() => setRemoving(null)}
        />
      )}
      {revoking && (
        <ConfirmDialog
          title={t.revokeInvitationTitle}
          body={t.revokeInvitationBody(revoking.email)}
          confirmLabel={t.revokeInvitationYes}
          danger
          onConfirm={async () => {
            await revokeInvitation(revoking.id);
            setRevoking(null);
            setNotice(null);
            invitations.reload();
          }}
          onClose={() => setRevoking(null)}
        />
      )}
    </>
  );
}

/** A role among those the actor may give, as a labelled select. */
function RoleSelect({
  id,
  roles,
  value,
  onChange,
}: {
  id: string;
  roles: readonly AccountRole[];
  value: AccountRole;
  onChange: (r: AccountRole) => void;
}) {
  const { t } = useI18n();
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value as AccountRole)}>
      {roles.map((r) => (
        <option key={r} value={r}>
          {t.roles[r]}
        </option>
      ))}
    </select>
  );
}

function ChangeRoleDialog({
  member,
  roles,
  onClose,
  onChanged,
}: {
  member: MemberView;
  roles: readonly AccountRole[];
  onClose: () => void;
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const [role, setRole] = useState<AccountRole>(member.role);
  return (
    <ConfirmDialog
      title={t.changeRoleTitle}
      body={t.changeRoleBody(member.email)}
      confirmLabel={t.changeRoleYes}
      onConfirm={async () => {
        await changeMemberRole(member.user_id, role);
        onChanged();
      }}
      onClose={onClose}
    >
      <Field id="member-role" label={t.newRole}>
        <RoleSelect id="member-role" roles={roles} value={role} onChange={setRole} />
      </Field>
    </ConfirmDialog>
  );
}

/** Who is invited is a field; the role is chosen among those the inviter may give, the least one first offered. */
function InviteForm({ actor, onInvited }: { actor: AccountRole; onInvited: (email: string) => void }) {
  const { t } = useI18n();
  const roles = rolesGivenBy(actor);
  const [role, setRole] = useState<AccountRole>('viewer');
  const form = useApiForm<{ email: string }>({ email: '' }, ['email'], async (v, { reset }) => {
    const sent = await invite({ email: v.email.trim(), role });
    reset();
    onInvited(sent.email);
  });
  const { errors, isSubmitting } = form.formState;
  return (
    <form class="card inline-form" aria-labelledby="invite-title" onSubmit={form.onSubmit} noValidate>
      <h3 id="invite-title">{t.inviteTitle}</h3>
      <TextField
        id="invite-email"
        label={t.email}
        type="email"
        autocomplete="off"
        hint={t.inviteHint}
        error={errors.email}
        field={form.register('email', { required: t.required })}
      />
      <Field id="invite-role" label={t.role}>
        <RoleSelect id="invite-role" roles={roles} value={role} onChange={setRole} />
      </Field>
      <ErrorMessage error={form.formError} />
      <button type="submit" class="primary" disabled={isSubmitting}>
        {isSubmitting ? t.inviting : t.invite}
      </button>
    </form>
  );
}

/** What each role may do, in words, from the same table that decides what the dashboard shows each role (roles.ts). */
function RoleGuide() {
  const { t } = useI18n();
  // Every member keeps their own password and second factors (`self`): the guide names what sets roles apart.
  const actions = (Object.keys(ROLE_ACTIONS) as RoleAction[]).filter((a) => a !== 'self');
  return (
    <details class="card role-guide">
      <summary>{t.roleGuideTitle}</summary>
      <Facts
        testId="role-guide"
        facts={ACCOUNT_ROLES.map((role) => ({
          label: t.roles[role],
          value: actions
            .filter((a) => roleMay(role, a))
            .map((a) => t.roleAction[a])
            .join('; '),
        }))}
      />
    </details>
  );
}
