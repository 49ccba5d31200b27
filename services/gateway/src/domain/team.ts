import type { AccountRole } from '@pl/contracts';
import { mayManageRole } from './roles';

/** What becomes of a change of a membership: made, or refused and why. */
export type MembershipDecision = 'ok' | 'not_found' | 'forbidden' | 'last_owner';

/**
 * Whether `actor` may give `target` the role `next` (null: remove them), on the account's memberships as locked:
 * a role the actor may not manage (an admin and an owner, or making an owner) is `forbidden`; a change that would
 * leave the account without an owner is `last_owner`; the refusal by role comes first.
 */
export function decideMembershipChange(actor: AccountRole, target: AccountRole, next: AccountRole | null, owners: number): MembershipDecision {
  if (!mayManageRole(actor, target) || (next !== null && !mayManageRole(actor, next))) return 'forbidden';
  if (target === 'owner' && next !== 'owner' && owners <= 1) return 'last_owner';
  return 'ok';
}
