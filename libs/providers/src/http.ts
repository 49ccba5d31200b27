import { ProviderUnavailableError, type CallContext, type ProviderName } from './provider';

/** A provider's answer that reached us whole: 2xx and 4xx (the adapter reads both); 5xx and 429 never get here. */
export interface ProviderAnswer {
  readonly status: number;
  /** The body as sent, for adapters that must read a value as its text appears. */
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface ProviderHttpRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The exact bytes to send (a signed body must be sent as signed), or undefined for none. */
  readonly body?: string;
}

/** A provider's answer larger than this is not a payment's state: refused as a bad answer rather than buffered. */
const MAX_ANSWER_BYTES = 1024 * 1024;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * One HTTP call to a provider under the call's deadline and abort signal. Whatever leaves its outcome unknown
 * (deadline, abort, reset, 5xx, 429, an answer too large to be one) rejects with ProviderUnavailableError, so the
 * caller can never mistake it for a refusal; 2xx and 4xx answers are returned for the adapter to read.
 */
export async function providerFetch(
  provider: ProviderName,
  operation: string,
  request: ProviderHttpRequest,
  ctx: CallContext,
): Promise<ProviderAnswer> {
  const deadline = AbortSignal.timeout(ctx.timeoutMs);
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline;
  let response: Response;
  try {
    response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body, signal, redirect: 'error' });
  } catch (e) {
    const why = deadline.aborted ? 'timeout' : ctx.signal?.aborted ? 'aborted' : 'network';
    throw new ProviderUnavailableError(provider, operation, why, { cause: e });
  }
  if (response.status >= 500 || response.status === 429) {
    await response.body?.cancel().catch(() => undefined);
    throw new ProviderUnavailableError(provider, operation, response.status === 429 ? 'rate_limited' : 'http_5xx');
  }
  let text: string;
  try {
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > MAX_ANSWER_BYTES) throw new ProviderUnavailableError(provider, operation, 'bad_answer');
    text = bytes.toString('utf8');
  } catch (e) {
    if (e instanceof ProviderUnavailableError) throw e;
    const why = deadline.aborted ? 'timeout' : ctx.signal?.aborted ? 'aborted' : 'network';
    throw new ProviderUnavailableError(provider, operation, why, { cause: e });
  }
  return { status: response.status, text, json: parseJson(text) };
}
