import type { Request, RequestHandler, Response } from 'express';
import { parseJsonPreservingNumbers } from '@pl/contracts';
import { AppError, invalidJson, payloadTooLarge, unsupportedMediaType } from '@pl/errors';
import { setBody } from '../context';

export const MAX_BODY_BYTES = 64 * 1024;

/** `application/json`, optionally with `charset=utf-8`; any other type or parameter is refused. */
export function isJsonMediaType(contentType: string): boolean {
  const [type, ...params] = contentType.split(';').map((p) => p.trim());
  if (type?.toLowerCase() !== 'application/json') return false;
  return params.every((p) => {
    if (p === '') return true;
    const match = /^charset\s*=\s*"?([^"]*)"?$/i.exec(p);
    return match !== null && /^utf-?8$/i.test(match[1] ?? '');
  });
}

const hasNoBody = (req: Request): boolean =>
  req.get('transfer-encoding') === undefined && (req.get('content-length') ?? '0') === '0';

function readBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // Leave the rest of the upload unread; the connection is closed after the 413.
        req.res?.set('Connection', 'close');
        reject(payloadTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads a JSON body in the documented order of checks: media type (415), size (413), syntax (400).
 * Numbers keep their source text, because amounts are judged by what the client wrote.
 * `emptyAs` lets a route accept a request with no body and no Content-Type at all (cancel: `{}`).
 */
/**
 * The body exactly as sent (at most 64 KiB), for routes that must check a signature over the bytes
 * before anything interprets them.
 */
export async function rawBodyOf(req: Request, res: Response): Promise<Buffer> {
  const declared = Number(req.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) {
    res.set('Connection', 'close');
    throw payloadTooLarge();
  }
  return readBody(req, MAX_BODY_BYTES);
}

export function jsonBody(options: { emptyAs?: unknown } = {}): RequestHandler {
  return async (req, res, next) => {
    const contentType = req.get('content-type');
    if (contentType === undefined && options.emptyAs !== undefined && hasNoBody(req)) {
      setBody(res, options.emptyAs);
      return next();
    }
    if (contentType === undefined || !isJsonMediaType(contentType)) throw unsupportedMediaType();
    const encoding = req.get('content-encoding');
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      throw unsupportedMediaType('Content-Encoding is not supported; send the JSON body uncompressed');
    }
    const declared = Number(req.get('content-length') ?? '0');
    if (declared > MAX_BODY_BYTES) {
      res.set('Connection', 'close');
      throw payloadTooLarge();
    }
    const raw = await readBody(req, MAX_BODY_BYTES);
    let parsed: unknown;
    try {
      parsed = parseJsonPreservingNumbers(utf8.decode(raw));
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw invalidJson();
    }
    setBody(res, parsed);
    next();
  };
}
