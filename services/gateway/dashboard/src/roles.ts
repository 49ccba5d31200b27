import type { AccountRole } from '@pl/contracts';

/**
 * What each role may do in an account: the dashboard's copy of services/gateway/src/domain/roles.ts, the server's
 * table (services/gateway/test/dashboard-roles.test.ts fails when they part). The one place the dashboard decides
 * what to show a role: pages and buttons ask `roleMay` through `useMay` (session.tsx), never a role by name. The
 * server still decides; this only spares a member buttons that would answer 403.
 */
export const ROLE_ACTIONS = {
  /** Read links, shops, deliveries and events. */
  read: ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'],
  /** Create and cancel links, resend webhooks. */
  operate_links: ['owner', 'admin', 'developer', 'finance', 'support'],
  /** API keys, webhook settings and secrets, cashier keys, shop settings, creating shops. */
  integrate: ['owner', 'admin', 'developer'],
  /** Read the balance, statements and refunds. */
  read_money: ['owner', 'admin', 'finance', 'support', 'viewer'],
  /** Refund, settle or refund unresolved payments. */
  move_money: ['owner', 'admin', 'finance'],
  /** Payout destinations and payouts (create). */
  payouts: ['owner', 'admin', 'finance'],
  /** Approve payouts (finance: not one's own). */
  approve_payouts: ['owner', 'admin', 'finance'],
  /** Members, roles and invitations, account settings (admin: not of owners). */
  manage_members: ['owner', 'admin'],
  /** Read the audit log. */
  read_audit: ['owner', 'admin'],
} as const satisfies Record<string, readonly AccountRole[]>;

export type RoleAction = keyof typeof ROLE_ACTIONS;

/** Every role, in the order the Team page offers them (most rights first). */
export const ACCOUNT_ROLES: readonly AccountRole[] = ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'];

export const roleMay = (role: AccountRole, action: RoleAction): boolean => (ROLE_ACTIONS[action] as readonly AccountRole[]).includes(role);

/** Whether `actor` may give, take or change a membership (or an invitation) of `target` role: an admin never an owner's. */
export const mayManageRole = (actor: AccountRole, target: AccountRole): boolean => actor === 'owner' || (actor === 'admin' && target !== 'owner');

/** The roles `actor` may give (invite with, change a member to). */
export const rolesGivenBy = (actor: AccountRole): AccountRole[] => ACCOUNT_ROLES.filter((r) => mayManageRole(actor, r));

/**
 * The pages of the main menu a role may not use, by address, and what each needs; a page not named here is for every
 * role (reading is). A page opened anyway by its address loads, and shows the server's refusal.
 */
const PAGE_NEEDS: Readonly<Record<string, RoleAction>> = {
  '/balance': 'read_money',
  '/api-keys': 'integrate',
  '/team': 'manage_members',
};

export const mayOpenPage = (role: AccountRole, href: string): boolean => {
  const needs = PAGE_NEEDS[href];
  return needs === undefined || roleMay(role, needs);
};
