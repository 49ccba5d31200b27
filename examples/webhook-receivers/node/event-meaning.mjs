// What each event type means to a shop, shared by both Node receivers of this folder.
// What each event type means to a shop (docs/webhooks.md). Act on the types you subscribe to; answer 2xx to any
// other, since new types may be added. Order by `created_at`: events of different types may arrive out of order.
export const meaning = ({ event, data = {} }) => {
  const order = `order ${data.order_id ?? '(none)'} (link ${data.payment_link_id})`;
  switch (event) {
    case 'payment.succeeded':
      return `${order}: paid ${data.amount}, credited ${data.merchant_credit}: fulfil it`;
    case 'payment.failed':
      return `${order}: the payment failed: release the reserved goods`;
    case 'payment_link.canceled':
      return `${order}: canceled: release the reserved goods`;
    case 'payment_link.expired':
      return `${order}: expired unpaid: release the reserved goods`;
    case 'refund.succeeded':
      return `refund ${data.id} of link ${data.payment_link_id}: ${data.amount} returned to the buyer`;
    case 'refund.failed':
      return `refund ${data.id} of link ${data.payment_link_id} failed (${data.failure_reason}): ${data.amount} is back in the balance`;
    case 'payment.late_settled':
      return `${order}: a late payment of ${data.amount} was credited by an operator: fulfil it or contact the buyer`;
    case 'webhook.test':
      return `a test webhook for shop ${data.shop_id}`;
    default:
      return `${event}: not a type this receiver knows: ignored`;
  }
};
