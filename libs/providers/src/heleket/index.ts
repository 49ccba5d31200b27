export { heleketProvider, type HeleketConfig, type HeleketProvider } from './heleket.provider';
export { SERVICES_TTL_MS, type HeleketNetworkService } from './services-list';
export {
  heleketPayoutCallbackUrl,
  heleketPayouts,
  type CreatePayoutRequest,
  type CreatePayoutResult,
  type HeleketPayouts,
  type HeleketPayoutsConfig,
  type PayoutCallbackVerdict,
  type PayoutNotFound,
} from './payouts';
export { HELEKET_PAYOUT_STATUSES, payoutIdOf, payoutOrderId, type PayoutState, type PayoutStatus } from './payout-state';
