import { z } from 'zod';

/**
 * The two worlds of docs/test-mode.md: live money, and test links that no real provider ever sees. The credential
 * decides the mode (its prefix says which), a session acts live unless the request carries `Pl-Mode: test`.
 */
export const mode = z.enum(['live', 'test']);
export type Mode = z.infer<typeof mode>;

/** The request header a session route reads its mode from (the dashboard's live / test switch sets it). */
export const MODE_HEADER = 'Pl-Mode';

/** `livemode` of the objects and webhooks of a mode. */
export const isLive = (m: Mode): boolean => m === 'live';
export const modeOfLivemode = (livemode: boolean): Mode => (livemode ? 'live' : 'test');

/** The prefixes of every credential, per mode: the mode is readable from the credential itself. */
export const CREDENTIAL_PREFIXES = {
  apiKey: { live: 'pk_live_', test: 'pk_test_' },
  apiSecret: { live: 'sk_live_', test: 'sk_test_' },
  cashierKey: { live: 'svc_live_', test: 'svc_test_' },
} as const satisfies Record<string, Record<Mode, string>>;

/** The mode a credential's prefix names, or null for none of ours. */
export function modeOfCredential(kind: keyof typeof CREDENTIAL_PREFIXES, credential: string): Mode | null {
  const prefixes = CREDENTIAL_PREFIXES[kind];
  if (credential.startsWith(prefixes.live)) return 'live';
  if (credential.startsWith(prefixes.test)) return 'test';
  return null;
}
