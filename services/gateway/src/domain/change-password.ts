import { forbidden } from '@pl/errors';
import type { Caller } from './api-keys';

export interface ChangePasswordPorts {
  accounts: {
    /** The new session epoch, or null for a wrong current password (nothing changed then); the audit event is written with the change. */
    changePassword(merchantId: string, current: string, next: string, ip: string | null): Promise<{ sessionEpoch: number } | null>;
  };
  sessions: {
    /** Keeps one session valid in the new epoch (the caller's own). */
    moveToEpoch(token: string, epoch: number): Promise<void>;
  };
}

/**
 * Changes the merchant's password. A wrong current password is 403 `common.err.forbidden` and changes nothing.
 * Every other session of the merchant ends at once (the epoch moves on); the caller's own goes on. No confirmed
 * email is needed: a merchant can always protect itself.
 */
export async function changePassword(
  ports: ChangePasswordPorts,
  caller: Caller & { sessionToken: string },
  body: { current_password: string; new_password: string },
): Promise<void> {
  const merchantId = caller.identity.merchant_id;
  const changed = await ports.accounts.changePassword(merchantId, body.current_password, body.new_password, caller.ip);
  if (!changed) throw forbidden('The current password is wrong');
  await ports.sessions.moveToEpoch(caller.sessionToken, changed.sessionEpoch);
}
