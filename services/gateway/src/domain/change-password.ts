import { forbidden } from '@pl/errors';
import type { Caller } from './api-keys';

export interface ChangePasswordPorts {
  users: {
    /** The new session epoch, or null for a wrong current password (nothing changed then); the audit event and the mail go with the change. */
    changePassword(userId: string, merchantId: string, current: string, next: string, ip: string | null): Promise<{ sessionEpoch: number } | null>;
  };
  sessions: {
    /** Keeps one session valid in the new epoch (the caller's own). */
    moveToEpoch(token: string, epoch: number): Promise<void>;
  };
  /** Refuses a password found in the common-password list (400 validation_failed naming `new_password`). */
  assertUncommon(password: string, field: string): void;
}

/**
 * Changes the user's password. A wrong current password is 403 `common.err.forbidden` and changes nothing.
 * Every other session of the user ends at once (the epoch moves on); the caller's own goes on. No confirmed
 * email is needed: a user can always protect themselves.
 */
export async function changePassword(
  ports: ChangePasswordPorts,
  caller: Caller & { sessionToken: string; userId: string },
  body: { current_password: string; new_password: string },
): Promise<void> {
  ports.assertUncommon(body.new_password, 'new_password');
  const changed = await ports.users.changePassword(caller.userId, caller.identity.merchant_id, body.current_password, body.new_password, caller.ip);
  if (!changed) throw forbidden('The current password is wrong');
  await ports.sessions.moveToEpoch(caller.sessionToken, changed.sessionEpoch);
}
