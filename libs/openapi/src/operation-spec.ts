import type { z } from 'zod';
import type { ErrorCode } from '@pl/errors';

// What an operation of the contract is, apart from the list of them (operations.ts), so that a list kept in a file of
// its own (payout-operations.ts) can be typed without importing the file that imports it.

/** Who may call an operation: the three credentials of the API (or one of two), or nobody in particular. */
export type Auth = 'apiKey' | 'cashier' | 'apiKeyOrCashier' | 'session' | 'cashierOrSession' | 'none';

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form: `/merchant/v1/payment-links/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: Tag;
  auth: Auth;
  /** The route's id parameter; an id that names nothing (malformed included) is 404. */
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  /** A JSON body; `optional`: an absent or empty body counts as `{}` (cancel, resend, rotate...). */
  body?: { schema: z.ZodType; optional?: boolean; example: unknown };
  /** `replay`: a repeat answers the first result; `secret`: a repeat of a success is 409, never the secret again. */
  idempotency?: 'replay' | 'secret';
  success: {
    status: number;
    description: string;
    schema?: z.ZodType;
    example?: unknown;
    html?: boolean;
    setsCookie?: boolean;
    /** A non-JSON, non-HTML answer (a static asset): each media type it may have, with an example (binary: none). */
    /** With `schema`: other media types the same answer may take (a CSV statement), each with an example. */
    files?: readonly { mediaType: string; example?: string }[];
  };
  /** Route-specific error codes; the ones every route of its kind can answer are added by `errorCodesOf`. */
  errors: readonly ErrorCode[];
  /** Answers errors as an HTML page (the buyer's checkout pages). */
  htmlErrors?: boolean;
  /** Needs no other service: no 503. */
  local?: boolean;
  /** Counted by a rate limiter (every authenticated route, and the buyer's select and the login by address). */
  rateLimited?: boolean;
  /**
   * Moves money or credentials: a session needs a second factor verified in the last 10 minutes (403
   * `auth.err.step_up_required`, or `auth.err.two_factor_required` with none). `over_limit`: only a refund over
   * 10,000.00 RUB. `has_second_factor`: only for a user who has one already (adding another must not step a session
   * up that could not step up otherwise). The gateway's step-up table is checked against these
   * (services/gateway/src/domain/step-up.test.ts).
   */
  stepUp?: true | 'over_limit' | 'has_second_factor';
  /** Served to a member without a second factor while the account requires one (enrolling, `/me`, signing out). */
  whileEnrolling?: true;
}

export const TAGS = {
  links: 'Payment links',
  refunds: 'Refunds',
  unresolved: 'Unresolved payments',
  payouts: 'Payouts',
  reports: 'Reports',
  balance: 'Balance',
  events: 'Events',
  shops: 'Shops',
  deliveries: 'Webhook deliveries',
  auth: 'Sessions and account',
  apiKeys: 'API keys',
  audit: 'Audit log',
  team: 'Team',
  checkout: 'Checkout',
  callbacks: 'Provider callbacks',
  meta: 'Documentation and dashboard',
} as const;
type Tag = (typeof TAGS)[keyof typeof TAGS];
