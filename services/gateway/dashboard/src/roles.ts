import type { AccountRole } from '@pl/contracts';
import { mayManageRole, ROLE_ACTIONS, roleMay, type RoleAction } from '../../src/domain/roles';

/**
 * What each role may do in an account is the gateway's own table (services/gateway/src/domain/roles.ts, a module
 * with type-only imports, so nothing else of the gateway is bundled): the dashboard shows a role exactly the pages
 * and buttons the server would let it use. Pages ask through `useMay` / `<Allowed>` (session.tsx), never a role by
 * name. The server still decides; this only spares a member buttons that would answer 403.
 */
export { mayManageRole, ROLE_ACTIONS, roleMay, type RoleAction };

/** Every role, in the order the Team page offers them (most rights first). */
export const ACCOUNT_ROLES: readonly AccountRole[] = ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'];

/** The roles `actor` may give (invite with, change a member to). */
export const rolesGivenBy = (actor: AccountRole): AccountRole[] => ACCOUNT_ROLES.filter((r) => mayManageRole(actor, r));

/**
 * The pages of the main menu a role may not use, by address, and what each needs; a page not named here is for every
 * role (reading is). A page opened anyway by its address loads, and shows the server's refusal.
 */
const PAGE_NEEDS: Readonly<Record<string, RoleAction>> = {
  // Home's figures are money (gross volume, refunds, the balance): the summary route needs read_money.
  '/home': 'read_money',
  '/balance': 'read_money',
  // Payouts and their destinations are money: every reader of money sees them, the buttons ask for more (roles.ts' `payouts`).
  '/payouts': 'read_money',
  '/payout-destinations': 'read_money',
  '/api-keys': 'integrate',
  '/team': 'manage_members',
  '/unresolved-payments': 'read_money',
};

export const mayOpenPage = (role: AccountRole, href: string): boolean => {
  const needs = PAGE_NEEDS[href];
  return needs === undefined || roleMay(role, needs);
};
