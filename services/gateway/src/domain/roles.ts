import type { AccountRole } from '@pl/contracts';

/**
 * What a member may do in an account, by role: the one table every session route is checked against
 * (docs/accounts-and-teams.md). API keys and cashier keys act for the account itself and are not members.
 */
export const ROLE_ACTIONS = {
  /** Read links, shops, deliveries and events. */
  read: ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'],
  /** Create and cancel links, resend webhooks. */
  operate_links: ['owner', 'admin', 'developer', 'finance', 'support'],
  /** API keys, webhook settings and secrets, cashier keys, shop settings, creating shops. */
  integrate: ['owner', 'admin', 'developer'],
  /** Read the balance, statements, refunds and unresolved payments. */
  read_money: ['owner', 'admin', 'finance', 'support', 'viewer'],
  /** Refund, settle or refund unresolved payments (and settle a test refund in the simulator). */
  move_money: ['owner', 'admin', 'finance'],
  /** Payout destinations and payouts (create). */
  payouts: ['owner', 'admin', 'finance'],
  /** Approve payouts (finance: not one's own). */
  approve_payouts: ['owner', 'admin', 'finance'],
  /** Members, roles and invitations, account settings (admin: not of owners). */
  manage_members: ['owner', 'admin'],
  /** Read the audit log. */
  read_audit: ['owner', 'admin'],
  /** One's own sign-in: password, second factors (every member has their own). */
  self: ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'],
  /** The account's security policy (requiring a second factor of every member): the spec gives it to owners alone. */
  account_policy: ['owner'],
} as const satisfies Record<string, readonly AccountRole[]>;

export type RoleAction = keyof typeof ROLE_ACTIONS;

export const roleMay = (role: AccountRole, action: RoleAction): boolean => (ROLE_ACTIONS[action] as readonly AccountRole[]).includes(role);

/**
 * Whether a member of `actor` role may give, take or change a membership of `target` role: an admin manages every
 * role but an owner's (nor makes anyone an owner); an owner manages all.
 */
export const mayManageRole = (actor: AccountRole, target: AccountRole): boolean => actor === 'owner' || (actor === 'admin' && target !== 'owner');
