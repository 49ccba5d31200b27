import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { getDailyReportPage, type DailyReportDeps } from '../../domain/daily-report';
import { inLinkMode } from './link-span';

/** The daily report's pages (docs/money.md, "Daily report"), in the caller's mode. */
export function registerReportHandlers(server: BusServer, deps: DailyReportDeps): void {
  server.handle(subjects.reportsDaily, (command, ctx) => inLinkMode(ctx, () => getDailyReportPage(deps, ctx.identity, command)));
}
