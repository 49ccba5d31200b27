import { PayoutDestinationRepository } from './data/payout-destination.repository';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { registerPayoutContextHandler } from './entry/nats/payout-context.handler';
import { BusClient, BusServer, connectNats, IdentityTokens, natsAnswers } from '@pl/bus';
import type { RunningService } from '@pl/config';
import { Db } from '@pl/db';
import { MailQueue, MailWorker, NO_MAIL_CRASH_POINTS, smtpSender, type MailCrashPoints } from '@pl/mail';
import { heleketPayoutsIfConfigured, providerCircuits, providerMetrics, providersFrom, providersOf, type ProvidersSource } from '@pl/providers';
import { createLogger, createMetricsRegistry, startOpsServer, type Logger } from '@pl/telemetry';
import type { GatewayConfig } from './config';
import { enqueueMail } from '@pl/mail';
import { AccountRepository } from './data/account.repository';
import { DailyReportMailRepository } from './data/daily-report-mail.repository';
import { ROLE_ACTIONS } from './domain/roles';
import { DailyReportMailJob } from './entry/jobs/daily-report-mail.job';
import { assertUncommonPassword, isCommonPassword } from './data/common-passwords';
import { TeamRepository } from './data/team.repository';
import { PasskeyRepository } from './data/passkey.repository';
import { WebAuthnChallenges } from './data/webauthn-challenges';
import { passkeyVerifier, Passkeys, relyingPartyOf } from './domain/passkeys';
import { SecretBox } from '@pl/config';
import { LoginChallengeStore } from './data/login-challenge.store';
import { SecondFactorRepository } from './data/second-factor.repository';
import { builtInVerifiers, SecondFactors } from './domain/second-factor';
import { UserRepository } from './data/user.repository';
import { mailLinks } from './domain/mail';
import { PasswordHasher } from './domain/password-hash';
import { ApiKeyCache } from './data/api-key.cache';
import { ApiKeyUsage } from './data/api-key-usage';
import { AuditLogRepository } from './data/audit-log.repository';
import { CredentialChanges } from './data/credential-changes';
import { DeliveriesClient } from './data/deliveries.client';
import { IdempotencyStore } from './data/idempotency.store';
import { LinksClient } from './data/links.client';
import { GATEWAY_SCHEMA } from './data/migrate';
import { RateLimits } from './data/rate-limits';
import { createRedis, type Redis } from './data/redis';
import { SessionStore } from './data/session.store';
import { ShopsClient } from './data/shops.client';
import { answerClientErrors } from './entry/http/client-errors';
import { callbackCounter } from './entry/http/callback-metrics';
import { callbackSenderOf } from './entry/http/callback-sender';
import { closeServer } from './entry/http/close-server';
import { listen } from './entry/http/listen';
import { observeRequests } from './entry/http/middlewares/http-metrics';
import { createHttpApp } from './entry/server';

/** How long stop() lets in-flight requests finish before cutting connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Verified API key pairs are served from memory at most this long. A revocation or reissue does not wait for it:
 * the credentials broadcast evicts the key on every replica at once, an entry never outlives its key's
 * `expires_at`, and nothing is kept while the bus is disconnected.
 */
const API_KEY_CACHE = { ttlMs: 10_000, maxEntries: 10_000 };
/** `last_used_at` is written at most once a minute per key per process. */
const API_KEY_USAGE = { everyMs: 60_000, maxKeys: 10_000 };

/** Starts the gateway: the merchant HTTP API on GATEWAY_PORT and /healthz, /readyz and /metrics on OPS_PORT. */
export async function startGateway(
  config: GatewayConfig,
  log: Logger = createLogger('gateway', config.LOG_LEVEL),
  // Tests that need a provider the configuration cannot name (one that is down, say) pass the registry here.
  providerSource: ProvidersSource = (observer, circuitOf) => providersFrom(config, { publicBaseUrl: config.PUBLIC_BASE_URL, observer, circuitOf }),
  // The crash tests' hook (tests/faults), wired by main.ts only when their environment arms it.
  crashPoints: MailCrashPoints = NO_MAIL_CRASH_POINTS,
): Promise<RunningService & { port: number }> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanup = async (): Promise<void> => {
    for (const fn of cleanups.reverse()) await fn().catch((err: unknown) => log.warn({ err }, 'error while stopping'));
  };
  try {
    const metrics = createMetricsRegistry('gateway');
    const observer = providerMetrics(metrics, log.child({ component: 'providers' }));
    const circuitOf = providerCircuits(config, observer);
    const providers = providersOf(providerSource, observer, circuitOf);
    const db = new Db({ url: config.DATABASE_URL, schema: GATEWAY_SCHEMA, log, prepare: true, max: config.DATABASE_POOL_MAX });
    cleanups.push(() => db.close());
    const redis: Redis = createRedis(config.REDIS_URL, log);
    cleanups.push(() => (redis.isOpen ? redis.close() : Promise.resolve()));
    // The gateway serves its core routes without Redis (see `ready` below), so it starts without it too: it
    // waits for the first connection attempt only, and the client keeps reconnecting after a failed one.
    const firstAttempt = once(redis, 'ready');
    redis.connect().catch((err: unknown) => log.warn({ err }, 'redis connection ended'));
    await firstAttempt.catch(() => log.warn('starting without redis: sessions and Idempotency-Key requests answer 503 until it is back'));
    const nc = await connectNats(config.NATS_URL, 'gateway', log);
    cleanups.push(() => nc.drain());

    const tokens = new IdentityTokens(config.IDENTITY_TOKEN_SECRET);
    const bus = new BusClient(nc, config.BUS_NAMESPACE, tokens, config.NATS_REQUEST_TIMEOUT_MS, {
      metrics,
    });
    // The in-progress marker outlives the slowest possible forwarded request, then frees the key.
    const lockSeconds = Math.ceil(config.NATS_REQUEST_TIMEOUT_MS / 1000) + 30;
    const passwords = new PasswordHasher(config.PASSWORD_SCRYPT);
    const accounts = new AccountRepository(db, passwords);
    const usage = new ApiKeyUsage((publicKey) => accounts.touchApiKey(publicKey), log, API_KEY_USAGE);
    const apiKeys = new ApiKeyCache(accounts, { ...API_KEY_CACHE, onUse: (publicKey) => usage.used(publicKey) });
    const credentials = new CredentialChanges(bus, apiKeys);
    const stopListening = credentials.listen(nc.status());
    cleanups.push(() => {
      stopListening();
      return Promise.resolve();
    });
    // The subscription is on the server before this replica serves: a change made elsewhere reaches it from the start.
    await nc.flush();
    const auditLog = new AuditLogRepository(db);
    // The common-password list is read before serving: the first sign-up takes no longer than any other.
    isCommonPassword('');
    const passkeyStore = new PasskeyRepository(db, enqueueMail);
    const passkeys = new Passkeys(passkeyStore, new WebAuthnChallenges(redis, config.REDIS_KEY_PREFIX), relyingPartyOf(config.PUBLIC_BASE_URL));
    const secondFactorStore = new SecondFactorRepository(
      db,
      twoFactorBox(config.TWO_FACTOR_SECRET_KEY),
      enqueueMail,
      mailLinks(config.PUBLIC_BASE_URL),
    );
    const links = new LinksClient(bus);
    const shops = new ShopsClient(bus);
    // The daily report mail goes to members whose role reads money, as the report itself does (ADR 49).
    const dailyReportMail = new DailyReportMailRepository(db, enqueueMail, ROLE_ACTIONS.read_money);
    const payoutDestinations = new PayoutDestinationRepository(db, enqueueMail, config.PAYOUT_DESTINATION_COOLDOWN_HOURS);
    // The one subject the gateway answers: links' payout scheduler asks what the account's settings hold (docs/adr/0046).
    const busServer = new BusServer(nc, config.BUS_NAMESPACE, tokens, 'gateway', log, { metrics });
    registerPayoutContextHandler(busServer, payoutDestinations);
    cleanups.push(() => busServer.drain());
    const app = createHttpApp({
      log,
      accounts,
      users: new UserRepository(db, enqueueMail, mailLinks(config.PUBLIC_BASE_URL), passwords, (err, userId) =>
        log.warn({ err, user_id: userId }, 'a password hash could not be raised to the current parameters; the sign-in went on'),
      ),
      team: new TeamRepository(db, enqueueMail, mailLinks(config.PUBLIC_BASE_URL), passwords),
      passkeys,
      passkeyStore,
      assertUncommonPassword,
      signupEnabled: config.SIGNUP_ENABLED,
      apiKeys,
      sessions: new SessionStore(redis, config.REDIS_KEY_PREFIX, config.SESSION_TTL_SECONDS, config.SESSION_IDLE_SECONDS),
      idempotency: new IdempotencyStore(redis, config.REDIS_KEY_PREFIX, config.IDEMPOTENCY_TTL_SECONDS, lockSeconds),
      rateLimits: new RateLimits(redis, config.REDIS_KEY_PREFIX, rateLimitSettings(config), log),
      trustProxyHops: config.TRUST_PROXY_HOPS,
      links,
      shops,
      deliveries: new DeliveriesClient(bus),
      providers,
      heleketPayouts: heleketPayoutsIfConfigured(config, circuitOf),
      callbackSender: callbackSenderOf(config.TRUSTED_PROXIES),
      callbacks: callbackCounter(metrics, ['sandbox', 'raiffeisen_sbp', 'heleket']),
      secureCookies: new URL(config.PUBLIC_BASE_URL).protocol === 'https:',
      publicOrigin: new URL(config.PUBLIC_BASE_URL).origin,
      allowHttpReturnUrl: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      audit: auditLog,
      auditLog,
      credentials,
      secondFactorStore,
      factors: new SecondFactors([
        // ASVS 2.8.5: the reuse is logged here (the user id, never the code) and mailed by the store, at most hourly.
        ...builtInVerifiers(secondFactorStore, (userId, mailed) =>
          log.warn({ user_id: userId, mailed }, 'a TOTP code was used again: refused (it may have been seen)'),
        ),
        passkeyVerifier(passkeys, passkeyStore),
      ]),
      loginChallenges: new LoginChallengeStore(redis, config.REDIS_KEY_PREFIX),
      payoutDestinations,
      dailyReportMail,
    });

    const server = createServer(observeRequests(app, metrics));
    server.requestTimeout = 30_000;
    server.headersTimeout = 20_000;
    answerClientErrors(server);
    const port = await listen(server, { port: config.GATEWAY_PORT, host: '0.0.0.0', reusePort: config.GATEWAY_REUSE_PORT });
    cleanups.push(() => closeServer(server, SHUTDOWN_GRACE_MS));

    // The mail queue's sender: every replica runs one; they share the queue through row leases.
    const mail = new MailWorker({
      queue: new MailQueue(db),
      sender: smtpSender(config.SMTP_URL, config.MAIL_FROM),
      settings: config,
      log,
      metrics,
      crashPoints,
    });
    mail.start();
    cleanups.push(() => mail.stop());

    // The daily report mail: every replica looks for mails due; the once-per-member-and-day row keeps them single.
    const dailyReportMailJob = new DailyReportMailJob(
      { repository: dailyReportMail, links, shops, publicBaseUrl: config.PUBLIC_BASE_URL, log },
      config.DAILY_REPORT_MAIL_EVERY_MS,
    );
    dailyReportMailJob.start();
    cleanups.push(() => dailyReportMailJob.stop());

    const ops = await startOpsServer({
      port: config.OPS_PORT,
      // Ready when it can serve its core work, the API-key and cashier routes and the checkout: Postgres (keys,
      // accounts) and NATS (the links and shops services). Not Redis: without it only sessions and
      // Idempotency-Key requests answer 503, and rate limits are counted per process.
      ready: async () => {
        const checks = await Promise.all([db.ping(), natsAnswers(nc)]);
        return checks.every(Boolean);
      },
      metrics,
    });
    cleanups.push(() => ops.close());
    log.info({ port, ops_port: ops.port }, 'gateway started');

    let stopping: Promise<void> | undefined;
    return {
      port,
      opsPort: ops.port,
      stop: () => (stopping ??= cleanup().then(() => log.info('gateway stopped'))),
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/** The box TOTP secrets are sealed in: bound to their purpose, so no other box opens as one. */
const twoFactorBox = (key: string): SecretBox => new SecretBox(Buffer.from(key, 'base64'), 'gateway.totp_secret.v1');

const rateLimitSettings = (config: GatewayConfig) => ({
  apiKeyPerMinute: config.RATE_LIMIT_API_KEY_PER_MINUTE,
  cashierPerMinute: config.RATE_LIMIT_CASHIER_PER_MINUTE,
  sessionPerMinute: config.RATE_LIMIT_SESSION_PER_MINUTE,
  accountMailPerIpPerHour: config.RATE_LIMIT_ACCOUNT_MAIL_PER_IP_PER_HOUR,
  accountMailPerEmailPerHour: config.RATE_LIMIT_ACCOUNT_MAIL_PER_EMAIL_PER_HOUR,
  loginPerIpPerMinute: config.RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE,
  selectPerIpPerMinute: config.RATE_LIMIT_SELECT_PER_IP_PER_MINUTE,
  authFailuresPerIpPerMinute: config.RATE_LIMIT_AUTH_FAILURES_PER_IP_PER_MINUTE,
  loginLockoutFailures: config.LOGIN_LOCKOUT_FAILURES,
  loginLockoutSeconds: config.LOGIN_LOCKOUT_SECONDS,
  twoFactorLockoutFailures: config.TWO_FACTOR_LOCKOUT_FAILURES,
  twoFactorLockoutSeconds: config.TWO_FACTOR_LOCKOUT_SECONDS,
});
