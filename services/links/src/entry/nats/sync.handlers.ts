import type { BusServer } from '@pl/bus';
import { PAYMENT_SYNC_REPORT_MAX, subjects, type PaymentSyncReport } from '@pl/contracts';
import { notFound } from '@pl/errors';
import { requireService } from '../../domain/access';
import { LINKS_OWN_MODE } from '../../domain/ports';
import { syncLink, type SyncDeps } from '../../domain/status-sync';

/**
 * `links.sync`: the operator's `payment:sync --link ID` (a service identity). The link's attempts and pending refunds
 * are read from their providers now, by the same code status sync runs, so what is learned takes the callback's path.
 */
export function registerSyncHandlers(server: BusServer, deps: SyncDeps): void {
  server.handle(subjects.linksSync, async ({ link_id }, ctx): Promise<PaymentSyncReport> => {
    requireService(ctx.identity);
    const link = await deps.links.findById(link_id, LINKS_OWN_MODE);
    if (!link) throw notFound('Payment link not found');
    const { attempts, refunds } = await syncLink(deps, link.id);
    const changed =
      attempts.some((a) => a.state_after !== a.state_before || a.link_status_after !== a.link_status_before || a.canceled) ||
      refunds.some((r) => r.status_after !== r.status_before);
    return {
      link_id: link.id,
      attempts_read: attempts.length,
      refunds_read: refunds.length,
      attempts: attempts.slice(-PAYMENT_SYNC_REPORT_MAX),
      refunds: refunds.slice(-PAYMENT_SYNC_REPORT_MAX),
      changed,
    };
  });
}
