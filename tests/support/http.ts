import { assertDocumented } from './openapi-validator';

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or undefined for an empty body. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary JSON
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** A string is sent as is (for malformed JSON); anything else is JSON-encoded. */
  body?: unknown;
  contentType?: string | null;
}

/**
 * A small fetch wrapper for black-box calls to the gateway. Every answer is checked against docs/openapi.json
 * (./openapi-validator): one the document does not describe throws, failing the test that received it.
 */
export function httpClient(baseUrl: string) {
  const call = async (method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      const given = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
      if (options.contentType !== null && !given) headers['content-type'] = options.contentType ?? 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    assertDocumented({ method, path, status: res.status, contentType: res.headers.get('content-type'), text, body: parsed });
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    call,
    get: (path: string, options?: RequestOptions) => call('GET', path, options),
    post: (path: string, body?: unknown, options: RequestOptions = {}) => call('POST', path, { ...options, body }),
  };
}

export type HttpClient = ReturnType<typeof httpClient>;

/** Asserts the documented error shape and returns the code. */
export function expectError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(typeof res.body.error.message).toBe('string');
  expect(res.text).not.toMatch(/\n\s+at /); // no stack traces
}
