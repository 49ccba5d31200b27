import type { Request } from 'express';
import type { DailyReportMailRepository } from '../../data/daily-report-mail.repository';
import type { Logger } from 'pino';
import type { HeleketPayouts, ProviderRegistry } from '@pl/providers';
import type { AccountRepository } from '../../data/account.repository';
import type { ApiKeyLookup } from '../../data/api-key.cache';
import type { DeliveriesClient } from '../../data/deliveries.client';
import type { IdempotencyStore } from '../../data/idempotency.store';
import type { RateLimits } from '../../data/rate-limits';
import type { LinksClient } from '../../data/links.client';
import type { SessionStore } from '../../data/session.store';
import type { ShopsClient } from '../../data/shops.client';
import type { CallbackCounter } from './callback-metrics';
import type { AuditRecorder } from '../../domain/audit';
import type { AuditLogRepository } from '../../data/audit-log.repository';
import type { CredentialChanges } from '../../data/credential-changes';
import type { UserRepository } from '../../data/user.repository';
import type { TeamRepository } from '../../data/team.repository';
import type { PasskeyRepository } from '../../data/passkey.repository';
import type { Passkeys } from '../../domain/passkeys';
import type { LoginChallengeStore } from '../../data/login-challenge.store';
import type { SecondFactorRepository } from '../../data/second-factor.repository';
import type { SecondFactors } from '../../domain/second-factor';
import type { PayoutDestinationRepository } from '../../data/payout-destination.repository';

/** Everything the HTTP entry point needs, built once in app.ts. */
export interface HttpDeps {
  log: Logger;
  accounts: AccountRepository;
  /** Users, their memberships and the tokens mailed to them. */
  users: UserRepository;
  /** Members of accounts and invitations to them. */
  team: TeamRepository;
  /** Passkey ceremonies: registration, and the `passkey` second factor's options and verification. */
  passkeys: Passkeys;
  /** The user's passkeys as stored: list, rename, remove. */
  passkeyStore: PasskeyRepository;
  /** 400 validation_failed naming the field when a new password is in the common-password list. */
  assertUncommonPassword: (password: string, field: string) => void;
  /** `SIGNUP_ENABLED`: anyone may open an account. */
  signupEnabled: boolean;
  /** API key pairs, through a short cache of verified pairs. */
  apiKeys: ApiKeyLookup;
  sessions: SessionStore;
  idempotency: IdempotencyStore;
  rateLimits: RateLimits;
  /** Proxy hops whose X-Forwarded-For is trusted for the client IP. */
  trustProxyHops: number;
  links: LinksClient;
  shops: ShopsClient;
  deliveries: DeliveriesClient;
  /** Payment providers whose callbacks are accepted, by their callback path. */
  providers: ProviderRegistry;
  /** Heleket's payouts client, which verifies its payout webhooks; null without Heleket payout credentials. */
  heleketPayouts: HeleketPayouts | null;
  /** A callback's sender address, judged through TRUSTED_PROXIES (not TRUST_PROXY_HOPS). */
  callbackSender: (req: Request) => string;
  /** Callbacks verified and refused, by provider. */
  callbacks: CallbackCounter;
  /** Session cookies get `Secure` when the public address is https. */
  secureCookies: boolean;
  /** `PUBLIC_BASE_URL`'s origin: cookie-authenticated state changes must come from it (CSRF). */
  publicOrigin: string;
  /** A link's return_url may be `http`: the deployment allows private webhook targets (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  allowHttpReturnUrl: boolean;
  /** The append-only audit log of credential changes. */
  audit: AuditRecorder;
  /** The same log, read back (`GET /api/v1/audit-events`). */
  auditLog: Pick<AuditLogRepository, 'page'>;
  /** Users' TOTP and recovery codes, and the accounts' two-factor policy. */
  secondFactorStore: SecondFactorRepository;
  /** Every second-factor verifier by method: the seam the passkeys module plugs into (domain/second-factor.ts). */
  factors: SecondFactors;
  /** Sign-in challenges between the password and the second factor. */
  loginChallenges: LoginChallengeStore;
  /** Revocations and reissues of API keys, announced to every gateway replica. */
  credentials: Pick<CredentialChanges, 'changed'>;
  /** Payout destinations and the accounts' payout settings (hold, approval of every payout). */
  payoutDestinations: PayoutDestinationRepository;
  /** Each member's opt-in to the daily report mail (docs/adr/0049). */
  dailyReportMail: DailyReportMailRepository;
}
