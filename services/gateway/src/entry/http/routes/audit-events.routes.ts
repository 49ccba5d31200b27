import { Router } from 'express';
import { cursorBigint, cursorCodec, formatMoscow, listAuditEventsQuery, type AuditEvent } from '@pl/contracts';
import type { AuditEventRecord } from '../../../data/audit-log.repository';
import type { HttpDeps } from '../deps';
import { identityOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

const DEFAULT_LIMIT = 20;

/** Opaque to clients: base64url of `v1:<seq>`; anything else is 400 `common.err.validation_failed` on `cursor`. */
const auditCursor = cursorCodec<{ seq: bigint }>({ seq: cursorBigint(19) });

const view = (e: AuditEventRecord): AuditEvent => ({
  id: e.seq,
  type: e.type,
  at: formatMoscow(e.at),
  ip: e.ip,
  subject: e.subject,
  user_id: e.userId,
  user_email: e.userEmail,
  role: e.role,
  user_agent: e.userAgent,
});

/** `GET /api/v1/audit-events`: the merchant's audit log, newest first, dashboard session only. */
export function auditEventsRoutes(deps: HttpDeps): Router {
  const router = Router();
  router
    .route('/')
    .get(
      chain(
        authenticateSession(deps),
        limitByCredential(deps.rateLimits),
        allow('read_audit'),
        route({
          query: listAuditEventsQuery,
          handle: async ({ res, query }) => {
            const before = query.cursor === undefined ? null : auditCursor.decode(query.cursor).seq;
            const limit = query.limit ?? DEFAULT_LIMIT;
            const { events, hasMore } = await deps.auditLog.page(identityOf(res).merchant_id, limit, before);
            const last = events[events.length - 1];
            res.json({
              audit_events: events.map(view),
              has_more: hasMore,
              next_cursor: hasMore && last ? auditCursor.encode({ seq: BigInt(last.seq) }) : null,
            });
          },
        }),
      ),
    )
    .all(wrongMethod(['GET']));
  return router;
}
