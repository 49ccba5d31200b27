#!/usr/bin/env python3
"""A webhook receiver for this platform in Python 3, standard library only.

    WEBHOOK_SECRET=<the shop's webhook secret> PORT=4242 python3 examples/webhook-receivers/python/receiver.py

It verifies the Standard Webhooks signature by hand: `webhook-signature` holds one or two (during a secret
rotation) space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{raw body}">`, keyed with
the UTF-8 bytes of the secret; a timestamp more than 5 minutes in the past or the future is refused.
Answers: 200 to a verified delivery (and to a repeat of one already handled), 400 to a malformed request,
401 to a bad signature or a stale timestamp, 405 to anything but POST, 413 to a body over 1 MiB.
Docs: docs/webhooks.md.
"""

import base64
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = os.environ.get("WEBHOOK_SECRET", "")
if not SECRET:
    print("WEBHOOK_SECRET is not set: give the shop webhook secret (as the dashboard or `npm start` shows it)", file=sys.stderr)
    sys.exit(2)
KEY = SECRET.encode("utf-8")
PORT = int(os.environ.get("PORT", "4242"))
HOST = os.environ.get("HOST", "127.0.0.1")
MAX_BODY_BYTES = 1024 * 1024
# A refused body up to this size is read and dropped before the 413: closing a socket with unread bytes resets it,
# and a sender still writing then sees a broken pipe instead of the answer. Larger ones are cut off unread.
DRAIN_LIMIT_BYTES = 8 * 1024 * 1024
TOLERANCE_SECONDS = 5 * 60

# Webhook ids already handled: retries and resends carry the same id, so each event is processed once.
# Keep this in your database in production; here a bounded in-memory set.
seen = OrderedDict()
seen_lock = threading.Lock()


def meaning(event):
    """What each event type means to a shop (docs/webhooks.md). Act on the types you subscribe to; answer 2xx to
    any other, since new types may be added. Order by `created_at`: events of different types may arrive out of order."""
    kind, data = event.get("event"), event.get("data") or {}
    order = f"order {data.get('order_id') or '(none)'} (link {data.get('payment_link_id')})"
    return {
        "payment.succeeded": lambda: f"{order}: paid {data.get('amount')}, credited {data.get('merchant_credit')}: fulfil it",
        "payment.failed": lambda: f"{order}: the payment failed: release the reserved goods",
        "payment_link.canceled": lambda: f"{order}: canceled: release the reserved goods",
        "payment_link.expired": lambda: f"{order}: expired unpaid: release the reserved goods",
        "refund.succeeded": lambda: f"refund {data.get('id')} of link {data.get('payment_link_id')}: {data.get('amount')} returned to the buyer",
        "refund.failed": lambda: f"refund {data.get('id')} of link {data.get('payment_link_id')} failed ({data.get('failure_reason')}): {data.get('amount')} is back in the balance",
        "payment.late_settled": lambda: f"{order}: a late payment of {data.get('amount')} was credited by an operator: fulfil it or contact the buyer",
        "webhook.test": lambda: f"a test webhook for shop {data.get('shop_id')}",
    }.get(kind, lambda: f"{kind}: not a type this receiver knows: ignored")()


class Refused(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def verify(headers, body):
    """Returns the parsed event, or raises Refused."""
    webhook_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not webhook_id or not timestamp or not signatures:
        raise Refused(400, "missing webhook-id, webhook-timestamp or webhook-signature")
    if not timestamp.isdigit() or len(timestamp) > 12:
        raise Refused(400, "webhook-timestamp is not unix seconds")
    if abs(int(time.time()) - int(timestamp)) > TOLERANCE_SECONDS:
        raise Refused(401, "timestamp more than 5 minutes off")
    signed = webhook_id.encode("utf-8") + b"." + timestamp.encode("ascii") + b"." + body
    expected = base64.b64encode(hmac.new(KEY, signed, hashlib.sha256).digest())
    for candidate in signatures.split(" "):
        version, _, value = candidate.partition(",")
        # compare_digest takes constant time for equal lengths; the loop is over the header's own entries.
        if version == "v1" and hmac.compare_digest(value.encode("ascii", "replace"), expected):
            try:
                return json.loads(body.decode("utf-8"))
            except ValueError:
                raise Refused(400, "body is not JSON")
    raise Refused(401, "no matching signature")


class Handler(BaseHTTPRequestHandler):
    server_version = "webhook-receiver"
    timeout = 15  # seconds a slow client may take per read

    def reply(self, status, payload, close=False):
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def refuse(self, status, message, close=False):
        print(f"rejected: {message}", flush=True)
        self.reply(status, {"error": {"code": "invalid_webhook", "message": message}}, close)

    def drain(self, length):
        remaining = min(length, DRAIN_LIMIT_BYTES)
        while remaining > 0:
            chunk = self.rfile.read(min(64 * 1024, remaining))
            if not chunk:
                break
            remaining -= len(chunk)

    def do_POST(self):
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            return self.refuse(400, "Content-Length required", close=True)
        if int(length) > MAX_BODY_BYTES:
            self.drain(int(length))
            return self.refuse(413, "body over 1 MiB", close=True)
        body = self.rfile.read(int(length))  # the raw bytes: never re-serialize JSON before verifying
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            event = verify(headers, body)
        except Refused as refused:
            return self.refuse(refused.status, str(refused))
        webhook_id = headers["webhook-id"]
        with seen_lock:
            duplicate = webhook_id in seen
            if not duplicate:
                seen[webhook_id] = True
                if len(seen) > 10_000:
                    seen.popitem(last=False)
        if duplicate:
            print(f"duplicate {webhook_id}: already handled", flush=True)
            return self.reply(200, {"received": True, "duplicate": True})
        # Handle the event here (quickly: answer within 10 s, queue slow work): `meaning` says what each type asks of you.
        # `livemode: false` is a test-mode link's event (no money moved): never ship a real order on it.
        data = json.dumps(event.get('data'), ensure_ascii=False, separators=(',', ':'))
        livemode = json.dumps(event.get('livemode'))
        print(f"verified {event.get('event')} {webhook_id} livemode={livemode} {data}", flush=True)
        print(f"  {meaning(event)}", flush=True)
        self.reply(200, {"received": True})

    def do_GET(self):
        self.refuse(405, "POST only")

    do_PUT = do_PATCH = do_DELETE = do_GET

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # one line per request is printed above


if __name__ == "__main__":
    server = ThreadingHTTPServer((HOST, PORT), Handler)
    print(f"listening on http://{HOST}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
