import { ACTIVE_API_KEYS_MAX, uuid, type MerchantIdentity, type Mode } from '@pl/contracts';
import { emailNotConfirmed, forbidden, notFound } from '@pl/errors';

/** An API key as the merchant manages it; the secret is kept only as a digest and never read back. */
export interface ApiKey {
  id: string;
  merchantId: string;
  label: string | null;
  publicKey: string;
  /** The mode every request made with the key acts in; a reissue keeps it. */
  mode: Mode;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** A key just made, with its secret: the only moment the secret exists in clear. */
export interface NewApiKey {
  key: ApiKey;
  apiSecret: string;
}

/**
 * The merchant's keys as stored; create and reissue refuse past `max` active keys (live and test counted together),
 * reissue and revoke an inactive key.
 * Each change writes its audit event (with `ip`, the caller's address) in the same transaction.
 */
interface ApiKeyStore {
  findApiKey(id: string): Promise<ApiKey | null>;
  listApiKeys(merchantId: string): Promise<ApiKey[]>;
  createApiKey(merchantId: string, label: string | null, mode: Mode, max: number, ip: string | null): Promise<NewApiKey>;
  reissueApiKey(id: string, graceMinutes: number, max: number, ip: string | null): Promise<{ replaced: ApiKey; issued: NewApiKey }>;
  revokeApiKey(id: string, ip: string | null): Promise<ApiKey>;
}

/** Tells every gateway replica that a key changed, so none keeps a cached copy of it. */
interface CredentialChangeNotice {
  changed(publicKey: string, expiresAt: Date | null): void;
}

export interface ApiKeyPorts {
  keys: ApiKeyStore;
  changes: CredentialChangeNotice;
}

/** Who asks and from where: the session's merchant and the client address, for the audit log. */
export interface Caller {
  identity: MerchantIdentity;
  ip: string | null;
}

/** The key named by `id`: 404 when there is none (an id that is not a UUID names none), 403 when it is another merchant's. */
export async function ownedKey(ports: ApiKeyPorts, caller: Caller, id: string): Promise<ApiKey> {
  const key = uuid.safeParse(id).success ? await ports.keys.findApiKey(id) : null;
  if (!key) throw notFound('API key not found');
  if (key.merchantId !== caller.identity.merchant_id) throw forbidden('This API key belongs to another merchant');
  return key;
}

export const listApiKeys = (ports: ApiKeyPorts, caller: Caller): Promise<ApiKey[]> => ports.keys.listApiKeys(caller.identity.merchant_id);

/**
 * A new key of `mode` (the body's, not the session's `Pl-Mode`: the dashboard lists and makes keys of both modes).
 * The limit counts the merchant's active keys of both modes together: it bounds the credentials that can act for
 * the account, and a test key is one of them.
 */
export async function createApiKey(ports: ApiKeyPorts, caller: Caller, label: string | null, mode: Mode): Promise<NewApiKey> {
  if (!caller.identity.email_confirmed) throw emailNotConfirmed('creating API keys');
  return ports.keys.createApiKey(caller.identity.merchant_id, label, mode, ACTIVE_API_KEYS_MAX, caller.ip);
}

/** A new key of the same mode for an active one, which keeps working `graceMinutes` more (0: stops at once, on every replica). */
export async function reissueApiKey(ports: ApiKeyPorts, caller: Caller, id: string, graceMinutes: number): Promise<NewApiKey> {
  await ownedKey(ports, caller, id);
  if (!caller.identity.email_confirmed) throw emailNotConfirmed('reissuing API keys');
  const { replaced, issued } = await ports.keys.reissueApiKey(id, graceMinutes, ACTIVE_API_KEYS_MAX, caller.ip);
  ports.changes.changed(replaced.publicKey, replaced.expiresAt);
  return issued;
}

/** Revokes a key at once, on every replica. Needs no confirmed email: a merchant can always protect itself. */
export async function revokeApiKey(ports: ApiKeyPorts, caller: Caller, id: string): Promise<ApiKey> {
  await ownedKey(ports, caller, id);
  const revoked = await ports.keys.revokeApiKey(id, caller.ip);
  ports.changes.changed(revoked.publicKey, revoked.revokedAt);
  return revoked;
}
