import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { HTTP_STATUS_BY_KIND, requestTooLarge } from '@pl/errors';

/** Node's own answers to the other requests its parser refuses (its defaults, which a `clientError` listener replaces). */
const BARE: Readonly<Record<string, string>> = {
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/**
 * Requests Node's HTTP parser refuses before express sees them. A URL and headers past its limit (16 KiB) get 431
 * in the error shape every other answer has, with an `X-Request-Id`, where Node answered a bare status line: a
 * client with a long query string learns what to change. Anything else keeps Node's answer (400, 408, 413).
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      const error = requestTooLarge();
      const body = JSON.stringify({ error: { code: error.code, message: error.message } });
      socket.end(
        [
          `HTTP/1.1 ${HTTP_STATUS_BY_KIND[error.kind]} Request Header Fields Too Large`,
          'Content-Type: application/json; charset=utf-8',
          `Content-Length: ${Buffer.byteLength(body)}`,
          `X-Request-Id: ${randomUUID()}`,
          'Cache-Control: no-store',
          'Connection: close',
          '',
          body,
        ].join('\r\n'),
      );
      return;
    }
    socket.end(`HTTP/1.1 ${BARE[err.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
  });
}
