import type { BusClient } from '@pl/bus';
import {
  subjects,
  type CreateLinkCommand,
  type ListLinksCommand,
  type MerchantIdentity,
  type PaymentLink,
  type PaymentLinkList,
} from '@pl/contracts';

/** The links service as the gateway sees it: typed NATS requests made on behalf of a merchant. */
export class LinksClient {
  constructor(private readonly bus: BusClient) {}

  create(identity: MerchantIdentity, command: CreateLinkCommand, requestId: string): Promise<PaymentLink> {
    return this.bus.request(subjects.linksCreate, command, identity, { requestId });
  }

  get(identity: MerchantIdentity, id: string, requestId: string): Promise<PaymentLink> {
    return this.bus.request(subjects.linksGet, { id }, identity, { requestId });
  }

  list(identity: MerchantIdentity, command: ListLinksCommand, requestId: string): Promise<PaymentLinkList> {
    return this.bus.request(subjects.linksList, command, identity, { requestId });
  }

  cancel(identity: MerchantIdentity, id: string, requestId: string): Promise<PaymentLink> {
    return this.bus.request(subjects.linksCancel, { id }, identity, { requestId });
  }
}
