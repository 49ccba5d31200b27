import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { getSummary, type SummaryDeps } from '../../domain/summary';
import { inLinkMode } from './link-span';

/** The dashboard Home page's summary subject (docs/reports.md), in the caller's mode. */
export function registerReportHandlers(server: BusServer, deps: SummaryDeps): void {
  server.handle(subjects.reportsSummary, (command, ctx) => inLinkMode(ctx, () => getSummary(deps, ctx.identity, command)));
}
