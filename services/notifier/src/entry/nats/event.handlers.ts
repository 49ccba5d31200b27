import type { BusServer, HandlerContext } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { activeSpan, MODE_ATTRIBUTE } from '@pl/telemetry';
import type { ShopDirectory } from '../../domain/delivery';
import { getEvent, listEvents, type EventStore } from '../../domain/events';

function markMode(ctx: HandlerContext): void {
  if (ctx.identity.kind === 'merchant') activeSpan()?.setAttribute(MODE_ATTRIBUTE, ctx.identity.mode);
}

/** The events API over NATS (the gateway's events routes): merchants read their recorded events in their mode. */
export function registerEventHandlers(server: BusServer, store: EventStore, shops: ShopDirectory): void {
  server.handle(subjects.eventsList, (req, ctx) => {
    markMode(ctx);
    return listEvents(store, shops, ctx.identity, req);
  });
  server.handle(subjects.eventsGet, (req, ctx) => {
    markMode(ctx);
    return getEvent(store, ctx.identity, req.event_id);
  });
}
