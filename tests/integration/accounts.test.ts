import { randomBytes } from 'node:crypto';
import { expectError } from '../support/http';
import { enrollTotp } from '../support/second-factor';
import { startSystem, type TestSystem } from '../support/system';

/**
 * Accounts merchants open and run themselves, end to end: every mail is read from the system's SMTP catcher, as
 * it went out over SMTP, and its link is followed as a person would.
 */
let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.stop());

const newEmail = (): string => `e2e-${randomBytes(6).toString('hex')}@example.com`;
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The token in the link of a caught mail (text part), and the link itself. */
function linkIn(text: string): { link: string; token: string } {
  const link = /https?:\/\/\S+token=([A-Za-z0-9_-]{43})/.exec(text);
  if (!link?.[1]) throw new Error(`no link in the mail:\n${text}`);
  return { link: link[0], token: link[1] };
}

async function signIn(email: string, password: string): Promise<Record<string, string>> {
  const res = await sys.http.post('/api/v1/auth/login', { email, password });
  expect(res.status).toBe(200);
  return bearer(res.body.session_token as string);
}

it('signs up, confirms the email from the mailed link, and runs the account as its owner', async () => {
  const email = newEmail();
  const password = 'a passphrase of my own';
  const res = await sys.http.post('/api/v1/auth/signup', { email, password, account_name: 'Tea House', language: 'en' });
  expect(res.status).toBe(202);
  const mail = await sys.mail.waitForMailTo(email);
  expect(mail.language).toBe('en');
  const { link, token } = linkIn(mail.text);
  expect(link).toContain('/dashboard/confirm-email?token=');

  const auth = await signIn(email, password);
  expect((await sys.http.get('/api/v1/me', { headers: auth })).body).toMatchObject({ email, email_confirmed: false, account: { role: 'owner' } });
  expect((await sys.http.post('/api/v1/auth/confirm-email', { token })).status).toBe(200);
  const me = (await sys.http.get('/api/v1/me', { headers: auth })).body;
  expect(me).toMatchObject({ email_confirmed: true, memberships: [{ name: 'Tea House', role: 'owner' }] });
  // A confirmed owner with a second factor (turning it on steps the session up) may make API keys, which work on
  // /merchant/v1.
  await enrollTotp(sys.http.call, (auth.Authorization ?? '').replace('Bearer ', ''), email);
  const key = await sys.http.post('/api/v1/api-keys', { label: 'shop' }, { headers: auth });
  expect(key.status).toBe(201);
  const links = await sys.http.get('/merchant/v1/payment-links', {
    headers: { 'X-API-Key': key.body.public_key, 'X-API-Secret': key.body.api_secret },
  });
  expect(links.status).toBe(200);
});

it('resets a forgotten password from the mailed link: the old sessions end, the new password signs in', async () => {
  const m = await sys.merchant();
  const before = await signIn(m.email, m.password);
  expect((await sys.http.post('/api/v1/auth/password-reset', { email: m.email })).status).toBe(202);
  const { token } = linkIn((await sys.mail.waitForMailTo(m.email)).text);
  const res = await sys.http.post('/api/v1/auth/password-reset/confirm', { token, new_password: 'a fresh passphrase' });
  expect(res.status).toBe(204);
  const changed = await sys.mail.waitForMailTo(m.email, 2);
  expect(changed.text).not.toContain(token);
  expectError(await sys.http.get('/api/v1/me', { headers: before }), 401, 'common.err.unauthorized');
  await signIn(m.email, 'a fresh passphrase');
  // The merchant's API keys are the account's: a password reset leaves them working.
  expect((await sys.http.get('/merchant/v1/payment-links', { headers: m.keys })).status).toBe(200);
});

it('invites a colleague by mail who joins with the role given, and loses the account when removed', async () => {
  const { merchant, shop } = await sys.merchantWithShop();
  const ownerAuth = bearer(await sys.login(merchant));
  const email = newEmail();
  expect((await sys.http.post('/api/v1/invitations', { email, role: 'viewer' }, { headers: ownerAuth })).status).toBe(201);
  const mail = await sys.mail.waitForMailTo(email);
  expect(mail.text).toContain(merchant.email);
  const { token } = linkIn(mail.text);
  const joined = await sys.http.post('/api/v1/invitations/accept', { token, password: 'the colleague passphrase' });
  expect(joined.status).toBe(200);
  const auth = bearer(joined.body.session_token as string);
  const me = (await sys.http.get('/api/v1/me', { headers: auth })).body as { user_id: string; merchant_id: string };
  expect(me.merchant_id).toBe(merchant.id);
  // A viewer reads the account's links and shops but makes none.
  expect((await sys.http.get('/api/v1/payment-links', { headers: auth })).status).toBe(200);
  expect((await sys.http.get(`/api/v1/shops/${shop.id}`, { headers: auth })).status).toBe(200);
  expectError(await sys.http.post('/api/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: auth }), 403, 'common.err.forbidden');
  expectError(
    await sys.http.post('/api/v1/payment-links/00000000-0000-4000-8000-000000000000/cancel', {}, { headers: auth }),
    404,
    'common.err.not_found',
  );
  expect((await sys.http.call('DELETE', `/api/v1/members/${me.user_id}`, { headers: ownerAuth })).status).toBe(204);
  expectError(await sys.http.get('/api/v1/payment-links', { headers: auth }), 401, 'common.err.unauthorized');
});
