import { formatMoscow, type MeView, type MerchantIdentity } from '@pl/contracts';
import { unauthorized } from '@pl/errors';
import type { HttpDeps } from '../deps';
import type { SessionMember } from '../context';

/** `GET /api/v1/me` (and the answer of a switch): the user, the session's account and every account of the user. */
export async function meView(
  deps: Pick<HttpDeps, 'users' | 'accounts' | 'secondFactorStore' | 'passkeyStore'>,
  identity: MerchantIdentity,
  member: SessionMember,
): Promise<MeView> {
  const [user, merchant, settings, memberships, totp, recoveryCodesLeft, passkeys] = await Promise.all([
    deps.users.findById(member.userId),
    deps.accounts.findById(identity.merchant_id),
    deps.secondFactorStore.accountSettings(identity.merchant_id),
    deps.users.memberships(member.userId),
    deps.secondFactorStore.totpEnabled(member.userId),
    deps.secondFactorStore.recoveryCodesLeft(member.userId),
    deps.passkeyStore.count(member.userId),
  ]);
  if (!user || !merchant || !settings) throw unauthorized('Missing, invalid or expired session');
  return {
    user_id: user.id,
    email: user.email,
    email_confirmed: user.emailConfirmed,
    two_factor: { totp, passkeys, recovery_codes_left: recoveryCodesLeft },
    merchant_id: merchant.id,
    account: { merchant_id: merchant.id, role: member.role, require_two_factor: settings.requireTwoFactor },
    memberships: memberships.map((m) => ({ merchant_id: m.merchantId, name: m.name, role: m.role })),
    created_at: formatMoscow(merchant.createdAt),
  };
}
