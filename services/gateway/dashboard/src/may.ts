import { roleMay, type RoleAction } from '../../src/domain/roles';
import { useSession } from './session';

/**
 * Whether the signed-in member's role may do `action` in the account, by the gateway's own table (domain/roles.ts: a
 * type-only import, so nothing else of the gateway is bundled), which answers the same calls 403 otherwise: a page
 * offers only what the member may do.
 */
export const useMay = (action: RoleAction): boolean => roleMay(useSession().me.account.role, action);
