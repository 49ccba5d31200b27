// The session API's shapes, from the contracts the gateway validates against (types only: nothing of them is bundled).
export type {
  ApiKeyView,
  ApiKeyWithSecret,
  MeView,
  MerchantShop,
  MerchantShopPage,
  PaymentLink,
  RotatedSecret,
  WebhookDelivery,
  WebhookDeliveryList,
} from '@pl/contracts';

export interface PaymentLinkList {
  payment_links: import('@pl/contracts').PaymentLink[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface AuditEventPage {
  audit_events: import('@pl/contracts').AuditEvent[];
  has_more: boolean;
  next_cursor: string | null;
}
