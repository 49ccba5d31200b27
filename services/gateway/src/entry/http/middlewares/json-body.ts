import { parse as parseContentType } from 'content-type';
import type { Request, Response } from 'express';
import getRawBody, { type RawBodyError } from 'raw-body';
import { parseJsonPreservingNumbers } from '@pl/contracts';
import { AppError, invalidJson, payloadTooLarge, unsupportedMediaType } from '@pl/errors';

const MAX_BODY_BYTES = 64 * 1024;

/** `application/json`, optionally with `charset=utf-8`; any other type or parameter, or a malformed header, is refused. */
export function isJsonMediaType(contentType: string): boolean {
  let parsed: ReturnType<typeof parseContentType>;
  try {
    parsed = parseContentType(contentType);
  } catch {
    return false;
  }
  if (parsed.type !== 'application/json') return false;
  return Object.entries(parsed.parameters).every(([name, value]) => name === 'charset' && /^utf-?8$/i.test(value));
}

/** What the headers say: no Transfer-Encoding and no (or a zero) Content-Length means no body at all. */
const hasNoBody = (req: Request): boolean => req.get('transfer-encoding') === undefined && (req.get('content-length') ?? '0') === '0';

const isRawBodyError = (e: unknown): e is RawBodyError & { status: number } =>
  typeof e === 'object' && e !== null && typeof (e as { type?: unknown }).type === 'string' && typeof (e as { status?: unknown }).status === 'number';

/**
 * The body's bytes, at most 64 KiB (raw-body refuses a larger declared Content-Length before reading, and stops
 * reading a stream that grows past it). Over the limit: 413, and the connection is closed after the answer, since
 * the rest of the upload is left unread.
 */
async function readBody(req: Request, res: Response): Promise<Buffer> {
  try {
    return await getRawBody(req, { length: req.get('content-length') ?? null, limit: MAX_BODY_BYTES });
  } catch (e) {
    if (!isRawBodyError(e)) throw e;
    if (e.type === 'entity.too.large') {
      res.set('Connection', 'close');
      throw payloadTooLarge();
    }
    // A body shorter than its Content-Length, or an upload the client abandoned: nothing to parse.
    if (e.status < 500) throw invalidJson('Request body could not be read');
    throw e;
  }
}

/**
 * The body exactly as sent (at most 64 KiB), for routes that must check a signature over the bytes
 * before anything interprets them.
 */
export const rawBodyOf = (req: Request, res: Response): Promise<Buffer> => readBody(req, res);

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads a JSON body in the documented order of checks: media type (415), size (413), syntax (400).
 * Numbers keep their source text, because amounts are judged by what the client wrote.
 *
 * `emptyAs` is for routes that take no body (cancel, resend: `{}`): a request without a body gets that value
 * whatever its Content-Type says, and so does an `application/json` one whose body turns out empty (chunked).
 * A body that is there must still be JSON.
 */
export async function readJsonBody(req: Request, res: Response, options: { emptyAs?: unknown } = {}): Promise<unknown> {
  const bodyless = options.emptyAs !== undefined;
  if (bodyless && hasNoBody(req)) return options.emptyAs;
  const contentType = req.get('content-type');
  if (contentType === undefined || !isJsonMediaType(contentType)) throw unsupportedMediaType();
  const encoding = req.get('content-encoding');
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    throw unsupportedMediaType('Content-Encoding is not supported; send the JSON body uncompressed');
  }
  const raw = await readBody(req, res);
  if (bodyless && raw.length === 0) return options.emptyAs;
  try {
    return parseJsonPreservingNumbers(utf8.decode(raw));
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw invalidJson();
  }
}
