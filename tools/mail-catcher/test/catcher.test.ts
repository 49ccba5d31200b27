// The catcher over real SMTP and HTTP: what a sender hands it is kept, awaited by address, and shown as JSON and as
// a page; a mail's own HTML is served sandboxed, since a mail's content is whatever its sender wrote.
import { smtpSender } from '@pl/mail';
import { MailCatcher } from '../src';

let catcher: MailCatcher;

beforeAll(async () => {
  catcher = await MailCatcher.start();
});

afterAll(() => catcher?.close());

const send = async (to: string, subject: string, html = '<p>hello</p>'): Promise<void> => {
  const sender = smtpSender(catcher.smtpUrl, 'Sender <from@example.com>');
  try {
    await sender.send({ to, subject, text: 'hello', html, messageId: `<${Date.now()}@example.com>`, language: 'en' });
  } finally {
    sender.close();
  }
};

test('a mail sent over SMTP is awaited by its recipient, and read over HTTP as JSON', async () => {
  const arrival = catcher.waitForMailTo('First@Example.com');
  await send('first@example.com', 'One');
  const mail = await arrival;
  expect(mail).toMatchObject({
    envelopeFrom: 'from@example.com',
    envelopeTo: ['first@example.com'],
    from: 'from@example.com',
    subject: 'One',
    language: 'en',
  });

  const all = (await (await fetch(`${catcher.httpUrl}/messages?to=first@example.com`)).json()) as { subject: string }[];
  expect(all.map((m) => m.subject)).toEqual(['One']);
  const one = await fetch(`${catcher.httpUrl}/messages/${mail.id}`);
  expect(((await one.json()) as { text: string }).text.trim()).toBe('hello');
  expect((await fetch(`${catcher.httpUrl}/messages/9999`)).status).toBe(404);
});

test('the second mail to an address is awaited on its own, and the page lists both with the subject escaped', async () => {
  await send('second@example.com', '<b>first</b>');
  const second = catcher.waitForMailTo('second@example.com', 2);
  await send('second@example.com', 'again');
  expect((await second).subject).toBe('again');

  const page = await fetch(`${catcher.httpUrl}/`);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const text = await page.text();
  expect(text).toContain('&lt;b&gt;first&lt;/b&gt;');
  expect(text).not.toContain('<b>first</b>');
});

test("a mail's HTML is served in a sandbox where no script runs and nothing loads", async () => {
  const arrival = catcher.waitForMailTo('html@example.com');
  await send('html@example.com', 'Markup', '<p>hi</p><script>alert(1)</script>');
  const mail = await arrival;
  const res = await fetch(`${catcher.httpUrl}/messages/${mail.id}.html`);
  expect(res.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
  expect(await res.text()).toContain('<p>hi</p>');
});

test('a refused recipient gets a permanent 550, and DELETE /messages forgets every mail', async () => {
  const refusing = await MailCatcher.start({ refuseRecipient: (a) => a === 'nobody@example.com' });
  try {
    const sender = smtpSender(refusing.smtpUrl, 'from@example.com');
    await expect(
      sender.send({ to: 'nobody@example.com', subject: 'x', text: 'x', html: 'x', messageId: '<x@example.com>', language: 'en' }),
    ).rejects.toMatchObject({
      code: 'EENVELOPE',
      responseCode: 550,
    });
    sender.close();
  } finally {
    await refusing.close();
  }
  expect(catcher.mails.length).toBeGreaterThan(0);
  expect((await fetch(`${catcher.httpUrl}/messages`, { method: 'DELETE' })).status).toBe(204);
  expect(await (await fetch(`${catcher.httpUrl}/messages`)).json()).toEqual([]);
});
