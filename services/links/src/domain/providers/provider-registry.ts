import type { Mode } from '@pl/contracts';
import type { PaymentProvider } from './payment-provider';
import type { SandboxProvider } from './sandbox.provider';

/**
 * The providers this deployment knows: the one new live payments go to, the sandbox that every test payment goes to,
 * and any others whose callbacks may still arrive. The test provider's type is the sandbox's own class, so no real
 * provider can be put there: a test link never reaches a gateway that moves money.
 */
export class ProviderRegistry {
  private readonly byNameMap: ReadonlyMap<string, PaymentProvider>;

  constructor(
    readonly live: PaymentProvider,
    readonly test: SandboxProvider,
    others: readonly PaymentProvider[] = [],
  ) {
    const byName = new Map<string, PaymentProvider>();
    for (const provider of [live, test, ...others]) {
      const known = byName.get(provider.name);
      // A callback names its provider; two providers of one name would let either settle the other's payments.
      if (known && known !== provider) throw new Error(`Two payment providers are named ${provider.name}`);
      byName.set(provider.name, provider);
    }
    this.byNameMap = byName;
  }

  /** Where a new payment of a link of `mode` goes. */
  forMode(mode: Mode): PaymentProvider {
    return mode === 'test' ? this.test : this.live;
  }

  byName(name: string): PaymentProvider | null {
    return this.byNameMap.get(name) ?? null;
  }
}
