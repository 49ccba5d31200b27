import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CaughtMail, CaughtMailStore } from './caught-mail';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

// A mail's HTML is shown as sent, but sandboxed: no script runs, nothing is loaded from anywhere.
const SANDBOX = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const send = (res: ServerResponse, status: number, type: string, body: string, csp = "default-src 'none'; style-src 'unsafe-inline'"): void => {
  res.writeHead(status, { 'content-type': type, 'content-security-policy': csp, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
  res.end(body);
};

function page(mails: CaughtMail[]): string {
  const rows = mails
    .slice()
    .reverse()
    .map(
      (m) =>
        `<tr><td>${m.id}</td><td>${escapeHtml(m.receivedAt)}</td><td>${escapeHtml(m.envelopeTo.join(', '))}</td>` +
        `<td>${escapeHtml(m.subject)}</td><td><a href="/messages/${m.id}.html">HTML</a> <a href="/messages/${m.id}.txt">text</a></td></tr>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Caught mail</title>
<style>body{font-family:sans-serif;margin:1rem}td,th{padding:.25rem .5rem;text-align:left;border-bottom:1px solid #ddd}</style></head>
<body><h1>Caught mail (${mails.length})</h1><p>JSON: <a href="/messages">/messages</a> (<code>?to=address</code> filters).</p>
<table><thead><tr><th>#</th><th>received</th><th>to</th><th>subject</th><th></th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}

/**
 * The catcher's HTTP side: `GET /` a page listing the mails, `GET /messages[?to=]` them as JSON, `GET /messages/{id}`
 * one as JSON, `/messages/{id}.html` and `.txt` its bodies, `DELETE /messages` forgets them all.
 */
export function handleHttp(catcher: CaughtMailStore, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://catcher');
  const path = url.pathname;
  if (req.method === 'DELETE' && path === '/messages') {
    catcher.clear();
    res.writeHead(204).end();
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, 'text/plain; charset=utf-8', 'method not allowed');
    return;
  }
  if (path === '/') {
    send(res, 200, 'text/html; charset=utf-8', page(catcher.mails));
    return;
  }
  if (path === '/messages') {
    const to = url.searchParams.get('to');
    send(res, 200, 'application/json', JSON.stringify(to ? catcher.mailsTo(to) : catcher.mails));
    return;
  }
  const one = /^\/messages\/(\d+)(\.html|\.txt)?$/.exec(path);
  const mail = one ? catcher.mails.find((m) => m.id === Number(one[1])) : undefined;
  if (!one || !mail) {
    send(res, 404, 'text/plain; charset=utf-8', 'not found');
    return;
  }
  if (one[2] === '.html') send(res, 200, 'text/html; charset=utf-8', mail.html, SANDBOX);
  else if (one[2] === '.txt') send(res, 200, 'text/plain; charset=utf-8', mail.text);
  else send(res, 200, 'application/json', JSON.stringify(mail));
}
