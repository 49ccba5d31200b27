import type { ComponentChildren } from 'preact';

export interface Fact {
  label: string;
  value: ComponentChildren;
  /** For a value that is an identifier or an address: monospaced, broken anywhere. */
  mono?: boolean;
  testId?: string;
}

/** Labelled values, each once: a label beside its value on a wide screen, above it on a phone. */
export function Facts({ facts, testId }: { facts: readonly (Fact | false | null)[]; testId?: string }) {
  return (
    <dl class="fields" data-testid={testId}>
      {facts.map(
        (f) =>
          f && (
            <div key={f.label}>
              <dt>{f.label}</dt>
              <dd class={f.mono ? 'mono' : undefined} data-testid={f.testId}>
                {f.value}
              </dd>
            </div>
          ),
      )}
    </dl>
  );
}
