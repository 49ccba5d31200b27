// The session API's shapes the pages hold, from the contracts the gateway validates against (types only: nothing of them
// is bundled). What a call answers is typed by @pl/client, from docs/openapi.json.
export type {
  ApiKeyView,
  ApiKeyWithSecret,
  AuditEvent,
  Balance,
  CryptoNetwork,
  BalanceTransactionPage,
  EventType,
  MeView,
  MerchantShop,
  MerchantShopPage,
  Mode,
  PaymentLink,
  PaymentLinkPage,
  Refund,
  RefundPage,
  RotatedSecret,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEvent,
  WebhookEventPage,
} from '@pl/contracts';
