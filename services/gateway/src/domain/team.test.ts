import { decideMembershipChange } from './team';
import { mayManageRole, roleMay } from './roles';

describe('decideMembershipChange', () => {
  it.each([
    ['owner', 'owner', 'admin', 2, 'ok'],
    ['owner', 'owner', 'admin', 1, 'last_owner'],
    ['owner', 'owner', null, 1, 'last_owner'],
    ['owner', 'owner', 'owner', 1, 'ok'],
    ['owner', 'viewer', 'owner', 1, 'ok'],
    ['admin', 'owner', 'viewer', 2, 'forbidden'],
    // The refusal by role comes before the last-owner rule.
    ['admin', 'owner', null, 1, 'forbidden'],
    ['admin', 'developer', 'owner', 1, 'forbidden'],
    ['admin', 'developer', 'finance', 1, 'ok'],
    ['admin', 'admin', null, 1, 'ok'],
  ] as const)('%s changing a %s to %s with %i owner(s): %s', (actor, target, next, owners, expected) => {
    expect(decideMembershipChange(actor, target, next, owners)).toBe(expected);
  });
});

describe('the role table', () => {
  it('lets every role read, and only owners and admins manage members and read the audit log', () => {
    for (const role of ['owner', 'admin', 'developer', 'finance', 'support', 'viewer'] as const) {
      expect(roleMay(role, 'read')).toBe(true);
      expect(roleMay(role, 'manage_members')).toBe(role === 'owner' || role === 'admin');
      expect(roleMay(role, 'read_audit')).toBe(role === 'owner' || role === 'admin');
    }
    expect(roleMay('developer', 'read_money')).toBe(false);
    expect(roleMay('support', 'read_money')).toBe(true);
    expect(roleMay('support', 'move_money')).toBe(false);
    expect(roleMay('viewer', 'operate_links')).toBe(false);
    expect(roleMay('finance', 'integrate')).toBe(false);
    expect(mayManageRole('admin', 'owner')).toBe(false);
  });
});
