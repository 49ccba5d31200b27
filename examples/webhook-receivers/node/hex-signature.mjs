// A webhook receiver for this platform with no library: the hex `X-Webhook-Signature` checked with node:crypto.
//
//   WEBHOOK_SECRET=<the shop's webhook secret> PORT=4242 node examples/webhook-receivers/node/hex-signature.mjs
//
// `X-Webhook-Signature` (= `Service-Signature`) is hex(HMAC-SHA256(raw body, secret)). It signs the body only, not
// the timestamp: the age check below turns stale deliveries away, but only the Standard Webhooks signature
// (standard-webhooks.mjs, or python/receiver.py) binds the timestamp to the body. Use it when you can; the hex
// one is for receivers written against the older interface. Remember handled webhook ids either way.
// Answers: 200 to a verified delivery (and to a repeat of one already handled), 400 to a malformed request,
// 401 to a bad signature or a timestamp more than 5 minutes off, 405 to anything but POST, 413 to a body over 1 MiB.
// Docs: docs/webhooks.md.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { meaning } from './event-meaning.mjs';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('WEBHOOK_SECRET is not set: give the shop webhook secret (as the dashboard or `npm start` shows it)');
  process.exit(2);
}
const port = Number(process.env.PORT ?? 4242);
const host = process.env.HOST ?? '127.0.0.1';
const MAX_BODY_BYTES = 1024 * 1024;
const TOLERANCE_SECONDS = 5 * 60;

const seen = new Set();
const remember = (id) => {
  seen.add(id);
  if (seen.size > 10_000) seen.delete(seen.values().next().value);
};

const reply = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
const refuse = (res, status, code, message) => {
  if (status !== 413) console.log(`rejected: ${message}`);
  reply(res, status, { error: { code, message } });
};

/** Whether `given` (hex text from a header) is the HMAC of `body`, compared in constant time. */
const signatureMatches = (body, given) => {
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest();
  if (typeof given !== 'string' || !/^[0-9a-f]{64}$/i.test(given)) return false;
  return timingSafeEqual(expected, Buffer.from(given, 'hex')); // same length (32 bytes) by the check above
};

const server = createServer((req, res) => {
  if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'POST only');
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
    res.setHeader('connection', 'close');
    return refuse(res, 413, 'too_large', 'body over 1 MiB');
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    if (res.headersSent) return;
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      res.setHeader('connection', 'close');
      return refuse(res, 413, 'too_large', 'body over 1 MiB');
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (res.headersSent) return;
    const body = Buffer.concat(chunks); // the raw bytes, exactly as sent
    const id = req.headers['x-webhook-id'];
    const timestamp = req.headers['x-webhook-timestamp'];
    if (!id || !timestamp || !/^\d{1,12}$/.test(timestamp)) return refuse(res, 400, 'invalid_webhook', 'missing webhook id or timestamp');
    if (!signatureMatches(body, req.headers['x-webhook-signature'])) return refuse(res, 401, 'invalid_webhook', 'signature does not match');
    if (Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > TOLERANCE_SECONDS) {
      return refuse(res, 401, 'invalid_webhook', 'timestamp more than 5 minutes off');
    }
    let event;
    try {
      event = JSON.parse(body.toString('utf8'));
    } catch {
      return refuse(res, 400, 'invalid_webhook', 'body is not JSON');
    }
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
