import { DEFAULT_MAX_PAYLOAD, JsonText, maxPayloadOf, okReplyData, okReplyText, replyBytes } from './envelope';

describe('reply envelope text', () => {
  const samples: unknown[] = [{ id: 'a', amount: '10.00', nested: { list: [1, 2], text: 'quote " and }' } }, [], 'text', 0, false, null];

  it('writes a successful reply exactly as JSON.stringify({ ok: true, data }) would', () => {
    for (const data of samples) expect(okReplyText(data)).toBe(JSON.stringify({ ok: true, data }));
  });

  it('gives back the data JSON of such a reply without parsing it, and null for any other reply', () => {
    const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
    for (const data of samples) expect(okReplyData(bytes(okReplyText(data)))?.toString('utf8')).toBe(JSON.stringify(data));
    expect(okReplyData(bytes(okReplyText({ name: 'Чайная 🍵' })))?.toString('utf8')).toBe('{"name":"Чайная 🍵"}');
    expect(okReplyData(bytes(JSON.stringify({ ok: false, error: { kind: 'not_found', code: 'common.err.not_found', message: 'x' } })))).toBeNull();
    expect(okReplyData(bytes('{"ok":true}'))).toBeNull();
  });

  it('puts data already written as JSON in as it is, not as a string', () => {
    const page = '{"has_more":false,"next_cursor":null,"payment_links":[{"id":"a"}]}';
    expect(okReplyText(new JsonText(page))).toBe(`{"ok":true,"data":${page}}`);
    expect(okReplyData(Buffer.from(okReplyText(new JsonText(page)), 'utf8'))?.toString('utf8')).toBe(page);
  });
});

describe('reply size', () => {
  it('counts a reply in the UTF-8 bytes that go on the wire', () => {
    expect(replyBytes({ ok: true, data: '🍵' }).length).toBe(Buffer.byteLength(okReplyText('🍵'), 'utf8'));
    expect(replyBytes({ ok: true, data: '\u0001' }).toString('utf8')).toBe('{"ok":true,"data":"\\u0001"}');
    const error = { ok: false as const, error: { kind: 'internal' as const, code: 'common.err.internal', message: 'x' } };
    expect(replyBytes(error).toString('utf8')).toBe(JSON.stringify(error));
  });

  it('takes the limit the server announced, and 1 MiB before any', () => {
    expect(maxPayloadOf({ info: { max_payload: 4096 } })).toBe(4096);
    expect(maxPayloadOf({ info: undefined })).toBe(DEFAULT_MAX_PAYLOAD);
    expect(DEFAULT_MAX_PAYLOAD).toBe(1_048_576);
  });
});
