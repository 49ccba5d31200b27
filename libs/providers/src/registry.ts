import type { Mode } from '@pl/contracts';
import type { PaymentMethod, PaymentProvider, ProviderName } from './provider';
import type { SandboxProvider } from './sandbox/sandbox.provider';

/** The live provider of each method (docs/product-decisions.md: SBP at Raiffeisen, crypto at Heleket, or the sandbox). */
export interface LiveProviders {
  readonly sbp: PaymentProvider;
  readonly crypto: PaymentProvider;
}

/** `raiffeisen_sbp` is called back at `/callbacks/v1/raiffeisen-sbp`: a path segment spells the name with hyphens. */
export const callbackPathOf = (name: ProviderName): string => name.replace(/_/g, '-');

/**
 * The providers this deployment knows: the live one of each method, and the sandbox that every test payment goes to
 * (whatever the live ones are). The sandbox's type is its own class, so no real provider can be put in its place: a
 * test link never reaches a provider that moves money. Every provider is known by its name (what a link and an
 * attempt store) and by its callback path.
 */
export class ProviderRegistry {
  private readonly byNameMap: ReadonlyMap<string, PaymentProvider>;
  private readonly byPathMap: ReadonlyMap<string, PaymentProvider>;

  constructor(
    readonly sandbox: SandboxProvider,
    private readonly live: LiveProviders,
  ) {
    const byName = new Map<string, PaymentProvider>();
    for (const provider of [sandbox, live.sbp, live.crypto]) {
      const known = byName.get(provider.name);
      // A callback names its provider; two providers of one name would let either settle the other's payments.
      if (known && known !== provider) throw new Error(`Two payment providers are named ${provider.name}`);
      byName.set(provider.name, provider);
    }
    // Maps, not objects: a path segment like `__proto__` or `constructor` must name nothing.
    this.byNameMap = byName;
    this.byPathMap = new Map([...byName.values()].map((p) => [callbackPathOf(p.name), p]));
  }

  /** Where a new payment of a link of `mode` by `method` goes: a test link's always to the sandbox. */
  forPayment(mode: Mode, method: PaymentMethod): PaymentProvider {
    return mode === 'test' ? this.sandbox : this.live[method];
  }

  byName(name: string): PaymentProvider | null {
    return this.byNameMap.get(name) ?? null;
  }

  /** The provider called back at `/callbacks/v1/{segment}`, or null. */
  byCallbackPath(segment: string): PaymentProvider | null {
    return this.byPathMap.get(segment) ?? null;
  }
}
