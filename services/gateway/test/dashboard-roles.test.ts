import { accountRole } from '@pl/contracts';
import { ROLE_ACTIONS, mayManageRole as dashboardMayManage, roleMay as dashboardMay, type RoleAction } from '../dashboard/src/roles';
import { mayManageRole, roleMay, type RoleAction as ServerAction } from '../src/domain/roles';

/**
 * The dashboard shows each role the pages and buttons of what it may do from its own copy of the role table
 * (services/gateway/dashboard/src/roles.ts): that copy must say what the server's says, for every role and action,
 * or a member would see buttons that answer 403, or miss ones they may use.
 */
const roles = accountRole.options;
const actions = Object.keys(ROLE_ACTIONS) as RoleAction[];
/** Both tables name the same actions: one added on one side only fails the typecheck here. */
type SameActions = [ServerAction] extends [RoleAction] ? ([RoleAction] extends [ServerAction] ? true : false) : false;
const sameActions: SameActions = true;

it('gives every role the actions the server allows it, no more and no fewer', () => {
  const server = roles.flatMap((r) => actions.map((a) => [r, a, roleMay(r, a)]));
  const dashboard = roles.flatMap((r) => actions.map((a) => [r, a, dashboardMay(r, a)]));
  expect(sameActions).toBe(true);
  expect(dashboard).toEqual(server);
  expect(server.some(([, , may]) => may === false)).toBe(true);
});

it('lets each role manage the memberships the server lets it manage', () => {
  const pairs = roles.flatMap((actor) => roles.map((target) => [actor, target]));
  expect(pairs.map(([a, t]) => dashboardMayManage(a!, t!))).toEqual(pairs.map(([a, t]) => mayManageRole(a!, t!)));
});
