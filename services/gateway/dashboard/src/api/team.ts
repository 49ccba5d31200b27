import { call, client } from './client';
import type { AccountRole, InvitationView, MemberView, MeView } from '../types';

/** The session API's calls about the account's team, and about which of the user's accounts the session acts for. */

export const listMembers = (): Promise<{ members: MemberView[] }> => call(client.GET('/api/v1/members'));

export const changeMemberRole = (userId: string, role: AccountRole): Promise<MemberView> =>
  call(client.PATCH('/api/v1/members/{user_id}', { params: { path: { user_id: userId } }, body: { role } }));

export const removeMember = async (userId: string): Promise<void> => {
  await call(client.DELETE('/api/v1/members/{user_id}', { params: { path: { user_id: userId } } }));
};

export const listInvitations = (): Promise<{ invitations: InvitationView[] }> => call(client.GET('/api/v1/invitations'));

export const invite = (body: { email: string; role: AccountRole }): Promise<InvitationView> => call(client.POST('/api/v1/invitations', { body }));

export const revokeInvitation = async (id: string): Promise<void> => {
  await call(client.DELETE('/api/v1/invitations/{id}', { params: { path: { id } } }));
};

/**
 * Joins the account of a mailed invitation: the signed-in user (the invited email's), or, with no session, the invited
 * email's user signed in by `password`, or signed up with it. Either way the session then acts for that account.
 */
export const acceptInvitation = async (body: { token: string; password?: string }): Promise<void> => {
  await call(client.POST('/api/v1/invitations/accept', { body }));
};

/** Moves the session to another of the user's accounts; answers who the user now is there. */
export const switchAccount = (merchantId: string): Promise<MeView> => call(client.POST('/api/v1/auth/switch', { body: { merchant_id: merchantId } }));
