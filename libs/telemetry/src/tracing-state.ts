/** The running tracing SDK's flush-and-stop, kept apart so runService can call it without loading the SDK. */
let shutdownHook: (() => Promise<void>) | undefined;

export function setTracingShutdown(hook: (() => Promise<void>) | undefined): void {
  shutdownHook = hook;
}

/** Flushes buffered spans and stops the SDK; a no-op when tracing is off. Never throws. */
export async function shutdownTracing(): Promise<void> {
  const hook = shutdownHook;
  shutdownHook = undefined;
  if (hook) await hook().catch(() => undefined);
}
