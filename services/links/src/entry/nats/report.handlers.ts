import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { getDailyReportPage, type DailyReportDeps } from '../../domain/daily-report';
import { getSummary, type SummaryDeps } from '../../domain/summary';
import { inLinkMode } from './link-span';

/** The daily report's pages (docs/money.md, "Daily report"), in the caller's mode. */
export function registerReportHandlers(server: BusServer, deps: DailyReportDeps): void {
  server.handle(subjects.reportsDaily, (command, ctx) => inLinkMode(ctx, () => getDailyReportPage(deps, ctx.identity, command)));
}

/** The dashboard Home page's summary subject (docs/reports.md), in the caller's mode. */
export function registerSummaryHandlers(server: BusServer, deps: SummaryDeps): void {
  server.handle(subjects.reportsSummary, (command, ctx) => inLinkMode(ctx, () => getSummary(deps, ctx.identity, command)));
}
