import { createHmac } from 'node:crypto';
import { startServiceProcess, stopServiceProcess, type ServiceProcess } from '../support/processes';
import { httpClient } from '../support/http';
import { totpCode } from '../support/second-factor';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestSystem } from '../support/system';
import { uniqueNamespace } from '@pl/testing';

/**
 * A full run of the four services as processes at debug level — logins, creates with every credential,
 * a failed login, a bad secret, a paid link and a signed webhook — and then a scan of every log line for
 * every secret the run handled. None may appear.
 */
let sys: TestSystem;
let receiver: WebhookReceiver;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  // The in-process system provides the database and fixtures; the processes get a bus namespace of their own.
  sys = await startSystem({ withoutLinks: true });
  receiver = await WebhookReceiver.start();
  const ns = uniqueNamespace('logscan');
  const env = {
    ...sys.env,
    BUS_NAMESPACE: ns,
    REDIS_KEY_PREFIX: `${ns}:`,
    PAYMENT_EVENTS_TOPIC: `${ns}.payment-events`,
    KAFKA_GROUP_ID: `${ns}-notifier`,
    LOG_LEVEL: 'debug',
  };
  for (const name of ['shops', 'links', 'notifier', 'gateway'] as const) processes.push(await startServiceProcess(name, env));
}, 60_000);

afterAll(async () => {
  for (const p of processes.reverse()) await stopServiceProcess(p);
  await receiver?.close();
  await sys?.stop();
});

it('writes no API secret, cashier key, session token, password, webhook secret, provider secret, TOTP secret or code, recovery code or sign-in challenge to any log line, nor any secret the session API reveals', async () => {
  const gateway = processes.find((p) => p.name === 'gateway')!;
  const http = httpClient(`http://127.0.0.1:${gateway.started.port as number}`);
  const webhookSecret = 'whsec-very-secret-value-0123456789';
  const { merchant, shop } = await sys.merchantWithShop({ webhookUrl: receiver.url, webhookSecret });

  const login = await http.post('/api/v1/auth/login', { email: merchant.email, password: merchant.password });
  expect(login.status).toBe(200);
  const session: string = login.body.session_token;
  expect((await http.post('/api/v1/auth/login', { email: merchant.email, password: `${merchant.password}-wrong` })).status).toBe(401);
  expect((await http.get('/merchant/v1/payment-links', { headers: { ...merchant.keys, 'X-API-Secret': 'sk_live_not-the-secret' } })).status).toBe(
    401,
  );

  const created = await http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 10 }, { headers: merchant.keys });
  expect(created.status).toBe(201);
  expect(
    (await http.post('/api/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: { Authorization: `Bearer ${session}` } })).status,
  ).toBe(201);
  expect((await http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: { Authorization: `Bearer ${shop.cashierKey}` } })).status).toBe(201);
  const body = JSON.stringify({ gateway_payment_id: sandboxPaymentId(created.body.id), status: 'paid' });
  const signature = createHmac('sha256', sys.env.PROVIDER_SANDBOX_SECRET!).update(body).digest('hex');
  expect((await http.post('/callbacks/v1/sandbox', body, { headers: { 'X-Provider-Signature': signature } })).status).toBe(200);
  await receiver.nthFor(created.body.id, 1);

  // Second factors: TOTP turned on (its secret, URI and first code), a wrong code, a step-up.
  const bearer = { Authorization: `Bearer ${session}` };
  const enrollment = await http.post('/api/v1/me/2fa/totp', {}, { headers: bearer });
  expect(enrollment.status).toBe(201);
  const totpSecret = enrollment.body.secret as string;
  const confirmCode = totpCode(totpSecret);
  const confirmed = await http.post('/api/v1/me/2fa/totp/confirm', { code: confirmCode }, { headers: bearer });
  expect(confirmed.status).toBe(200);
  const recoveryCodes = confirmed.body.recovery_codes as string[];
  const stepUpCode = totpCode(totpSecret, new Date(Date.now() + 30_000));
  expect((await http.post('/api/v1/auth/step-up', { code: confirmCode }, { headers: bearer })).status).toBe(400);
  expect((await http.post('/api/v1/auth/step-up', { code: stepUpCode }, { headers: bearer })).status).toBe(204);

  // The session API's calls that reveal a secret, once each, and a password change.
  const newKey = await http.post('/api/v1/api-keys', { label: 'log scan' }, { headers: bearer });
  expect(newKey.status).toBe(201);
  const reissuedKey = await http.post(`/api/v1/api-keys/${newKey.body.id as string}/reissue`, { grace_minutes: 5 }, { headers: bearer });
  expect(reissuedKey.status).toBe(201);
  expect(
    (await http.get('/merchant/v1/shops', { headers: { 'X-API-Key': reissuedKey.body.public_key, 'X-API-Secret': reissuedKey.body.api_secret } }))
      .status,
  ).toBe(200);
  const rotated = await http.post(`/api/v1/shops/${shop.id}/webhook-secret/rotate`, { overlap_minutes: 10 }, { headers: bearer });
  expect(rotated.status).toBe(200);
  const test = await http.post(`/api/v1/shops/${shop.id}/webhook-test`, {}, { headers: bearer });
  expect(test.status).toBe(202);
  const reissuedCashier = await http.post(`/api/v1/shops/${shop.id}/cashier-key/reissue`, {}, { headers: bearer });
  expect(reissuedCashier.status).toBe(200);
  expect(
    (await http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: { Authorization: `Bearer ${reissuedCashier.body.cashier_key}` } }))
      .status,
  ).toBe(201);
  const newPassword = `${merchant.password}-changed`;
  expect(
    (await http.post('/api/v1/auth/password', { current_password: merchant.password, new_password: newPassword }, { headers: bearer })).status,
  ).toBe(204);

  expect((await http.post('/api/v1/auth/logout', undefined, { headers: { Cookie: `sid=${session}`, Origin: 'http://localhost:8080' } })).status).toBe(
    204,
  );
  // Sign-in's second step: its challenge, a wrong recovery code, then a right one.
  const challenged = await http.post('/api/v1/auth/login', { email: merchant.email, password: newPassword });
  expect(challenged.body.two_factor_required).toBe(true);
  const challenge = challenged.body.challenge as string;
  expect((await http.post('/api/v1/auth/login/2fa', { challenge, recovery_code: 'wxyz-wxyz-wxyz-wxyz' })).status).toBe(400);
  const secondStep = await http.post('/api/v1/auth/login/2fa', { challenge, recovery_code: recoveryCodes[0] });
  expect(secondStep.status).toBe(200);
  const newCodes = await http.post('/api/v1/me/2fa/recovery-codes', {}, { headers: { Authorization: `Bearer ${secondStep.body.session_token}` } });
  expect(newCodes.status).toBe(201);

  const secrets: Record<string, string> = {
    'API secret': merchant.apiSecret,
    'cashier key': shop.cashierKey,
    'session token': session,
    password: merchant.password,
    'webhook secret': webhookSecret,
    'provider secret': sys.env.PROVIDER_SANDBOX_SECRET!,
    'created API secret': newKey.body.api_secret,
    'reissued API secret': reissuedKey.body.api_secret,
    'rotated webhook secret': rotated.body.webhook_secret,
    'Standard Webhooks secret': rotated.body.standard_webhooks_secret,
    'reissued cashier key': reissuedCashier.body.cashier_key,
    'new password': newPassword,
    'identity token secret': sys.env.IDENTITY_TOKEN_SECRET ?? 'dev-only-identity-token-secret-change-me-0123456789',
    'TOTP secret': totpSecret,
    'otpauth URI': enrollment.body.otpauth_uri,
    'sign-in challenge': challenge,
    'second-step session token': secondStep.body.session_token,
    'wrong recovery code': 'wxyz-wxyz-wxyz-wxyz',
    // A 6-digit code could match any number by chance (a timestamp, say): looked for as a JSON string.
    'TOTP confirmation code': `"${confirmCode}"`,
    'TOTP step-up code': `"${stepUpCode}"`,
  };
  for (const [i, code] of [...recoveryCodes, ...(newCodes.body.recovery_codes as string[])].entries()) secrets[`recovery code ${i}`] = code;
  const lines = processes.flatMap((p) => p.lines.map((l) => `${p.name}: ${l}`));
  expect(lines.length).toBeGreaterThan(10); // debug logging really ran
  for (const [what, secret] of Object.entries(secrets)) {
    const leaks = lines.filter((l) => l.includes(secret));
    expect({ what, leaks }).toEqual({ what, leaks: [] });
  }
}, 60_000);
