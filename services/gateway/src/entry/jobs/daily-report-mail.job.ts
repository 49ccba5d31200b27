import { randomUUID } from 'node:crypto';
import { DAILY_REPORT_PAGE_MAX, PAGE_LIMIT_MAX, type DailyReportRow, type MerchantIdentity } from '@pl/contracts';
import type { Logger } from '@pl/telemetry';
import type { DailyReportMailRepository } from '../../data/daily-report-mail.repository';
import type { LinksClient } from '../../data/links.client';
import type { ShopsClient } from '../../data/shops.client';
import { sendDailyReportMails, type DailyReportMailPorts } from '../../domain/send-daily-report-mails';

export interface DailyReportMailDeps {
  repository: DailyReportMailRepository;
  links: Pick<LinksClient, 'dailyReport'>;
  shops: Pick<ShopsClient, 'list'>;
  publicBaseUrl: string;
  log: Logger;
}

/**
 * The job acts for the account itself, as an API key does (it is no member): live mode, the mail is about real money.
 * One request id per run ties its bus calls together in the traces.
 */
const accountIdentity = (merchantId: string): MerchantIdentity => ({
  kind: 'merchant',
  merchant_id: merchantId,
  auth: 'api_key',
  email_confirmed: true,
  mode: 'live',
});

/** The use case's ports over the gateway's schema and the links and shops services. */
function dailyReportMailPorts(deps: DailyReportMailDeps): DailyReportMailPorts {
  const requestId = `daily-report-mail-${randomUUID()}`;
  return {
    due: (day) => deps.repository.due(day),
    mailOnce: (member, day, mail) => deps.repository.mailOnce(member, day, mail),
    async shopsOf(merchantId) {
      const shops: { id: number; name: string }[] = [];
      let cursor: string | null = null;
      do {
        const page = await deps.shops.list(accountIdentity(merchantId), { limit: PAGE_LIMIT_MAX, cursor }, requestId);
        shops.push(...page.shops.map((s) => ({ id: s.id, name: s.name })));
        cursor = page.has_more ? page.next_cursor : null;
      } while (cursor !== null);
      return shops.sort((a, b) => a.id - b.id);
    },
    async *reportRows(merchantId, shopId, day): AsyncGenerator<DailyReportRow> {
      const identity = accountIdentity(merchantId);
      let cursor: string | null = null;
      do {
        const page = await deps.links.dailyReport(identity, { shop_id: shopId, date: day, limit: DAILY_REPORT_PAGE_MAX, cursor }, requestId);
        yield* page.rows;
        cursor = page.has_more ? page.next_cursor : null;
      } while (cursor !== null);
    },
    links: {
      dashboard: new URL('/dashboard/home', deps.publicBaseUrl).toString(),
      report: new URL('/api/v1/reports/daily', deps.publicBaseUrl).toString(),
    },
    onAccountError: (err, merchantId) =>
      deps.log.warn({ err, merchant_id: merchantId }, 'daily report mail not made for an account this run; the next run tries again'),
  };
}

/**
 * Runs the daily report mail on this replica every `everyMs` (DAILY_REPORT_MAIL_EVERY_MS), the first run at start:
 * a replica that was down at 07:00 catches the day up when it starts. Every replica runs it; the use case's
 * once-per-member-and-day row keeps the mails single. `everyMs` 0: never (a test drives `runOnce` itself).
 */
export class DailyReportMailJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly deps: DailyReportMailDeps,
    private readonly everyMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** One run at `now()`: how many mails this run queued, for which day (null: none due yet). */
  runOnce(): Promise<{ day: string | null; queued: number }> {
    return sendDailyReportMails(dailyReportMailPorts(this.deps), this.now());
  }

  start(): void {
    if (this.everyMs === 0) return;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .then(({ day, queued }) => {
          if (queued > 0) this.deps.log.info({ day, queued }, 'daily report mails queued');
        })
        .catch((err: unknown) => this.deps.log.warn({ err }, 'daily report mail run failed; the next run tries again'))
        .finally(() => {
          if (!this.stopped) this.schedule(this.everyMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
