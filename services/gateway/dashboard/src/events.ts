import type { EventType } from './types';

/**
 * @pl/contracts' EVENT_TYPES, written out (importing a value from the contracts would bundle zod into the app). Keyed
 * by the type, so the build fails when the contracts gain a type this lacks (or lose one it has).
 */
const LISTED: Record<EventType, true> = {
  'payment.succeeded': true,
  'payment.failed': true,
  'payment_link.canceled': true,
  'payment_link.expired': true,
  'refund.succeeded': true,
  'refund.failed': true,
  'payment.late_settled': true,
  'unresolved_payment.created': true,
  'unresolved_payment.settled': true,
  'unresolved_payment.refunded': true,
  'payout.created': true,
  'payout.paid': true,
  'payout.failed': true,
  'payout.canceled': true,
};
/** Every event type, in the catalogue's order. */
export const EVENT_TYPES = Object.keys(LISTED) as EventType[];
