// A webhook receiver for this platform, verified with the Standard Webhooks library (`npm install standardwebhooks`).
//
//   WEBHOOK_SECRET=<the shop's webhook secret> PORT=4242 node examples/webhook-receivers/node/standard-webhooks.mjs
//
// It checks `webhook-signature` (HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{raw body}"), which also refuses
// a timestamp more than 5 minutes in the past or the future, so a captured request cannot be replayed later.
// Answers: 200 to a verified delivery (and to a repeat of one already handled), 400 to a malformed request,
// 401 to a bad signature or a stale timestamp, 405 to anything but POST, 413 to a body over 1 MiB.
// Docs: docs/webhooks.md.
import { createServer } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { meaning } from './event-meaning.mjs';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('WEBHOOK_SECRET is not set: give the shop webhook secret (as the dashboard or `npm start` shows it)');
  process.exit(2);
}
const port = Number(process.env.PORT ?? 4242);
const host = process.env.HOST ?? '127.0.0.1';
const MAX_BODY_BYTES = 1024 * 1024;

// The library takes the secret as `whsec_` + base64 of its bytes (the dashboard shows that form too). The platform
// keys its HMAC with the UTF-8 bytes of the secret, so the plain secret is converted here.
const webhook = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));

// Webhook ids already handled: retries and resends carry the same id, so each event is processed once.
// Keep this in your database in production; here a bounded in-memory set.
const seen = new Set();
const remember = (id) => {
  seen.add(id);
  if (seen.size > 10_000) seen.delete(seen.values().next().value);
};

const reply = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
const refuse = (res, status, code, message) => reply(res, status, { error: { code, message } });

const server = createServer((req, res) => {
  if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'POST only');
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
    res.setHeader('connection', 'close');
    return refuse(res, 413, 'too_large', 'body over 1 MiB');
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    if (res.headersSent) return; // already refused: the rest is dropped and the connection closed
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      res.setHeader('connection', 'close');
      return refuse(res, 413, 'too_large', 'body over 1 MiB');
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (res.headersSent) return;
    const body = Buffer.concat(chunks); // the raw bytes: never re-serialize JSON before verifying
    let event;
    try {
      event = webhook.verify(body, {
        'webhook-id': req.headers['webhook-id'],
        'webhook-timestamp': req.headers['webhook-timestamp'],
        'webhook-signature': req.headers['webhook-signature'],
      });
    } catch (err) {
      const message = err instanceof WebhookVerificationError ? err.message : 'unreadable body';
      console.log(`rejected: ${message}`);
      return refuse(res, err instanceof WebhookVerificationError && message !== 'Missing required headers' ? 401 : 400, 'invalid_webhook', message);
    }
    const id = req.headers['webhook-id'];
    if (seen.has(id)) {
      console.log(`duplicate ${id}: already handled`);
      return reply(res, 200, { received: true, duplicate: true });
    }
    remember(id);
    // Handle the event here (quickly: answer within 10 s, queue slow work): `meaning` (event-meaning.mjs) says what each type asks of you.
    // `livemode: false` is a test-mode link's event (no money moved): never ship a real order on it.
    console.log(`verified ${event.event} ${id} livemode=${JSON.stringify(event.livemode ?? null)} ${JSON.stringify(event.data)}`);
    console.log(`  ${meaning(event)}`);
    reply(res, 200, { received: true });
  });
});
server.requestTimeout = 15_000;
server.listen(port, host, () => console.log(`listening on http://${host}:${server.address().port}`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGINT', stop).on('SIGTERM', stop);
