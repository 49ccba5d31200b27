import type { DailyReportRow } from '@pl/contracts';
import type { MailRequest } from '@pl/mail';
import { sendDailyReportMails, type DailyReportMailMember, type DailyReportMailPorts } from './send-daily-report-mails';

const AT_0700 = new Date('2026-11-21T04:00:00Z');
const member = (merchantId: string, email: string): DailyReportMailMember => ({
  userId: email,
  merchantId,
  email,
  language: 'en',
  accountName: merchantId,
});

/** A quiet day: the report has no rows. */
async function* noRows(): AsyncGenerator<DailyReportRow> {
  yield* [];
}

/** Ports over memory: `failing` accounts cannot be read, `refused` addresses cannot be queued. */
function ports(members: DailyReportMailMember[], options: { shops: Record<string, number>; failing?: string[]; refused?: string[] }) {
  const queued: MailRequest[] = [];
  const errors: string[] = [];
  const p: DailyReportMailPorts = {
    due: () => Promise.resolve(members),
    mailOnce: (_m, _day, mail) => {
      if (options.refused?.includes(mail.to)) return Promise.reject(new Error('refused'));
      queued.push(mail);
      return Promise.resolve(true);
    },
    shopsOf: (merchantId) =>
      options.failing?.includes(merchantId)
        ? Promise.reject(new Error('links down'))
        : Promise.resolve(Array.from({ length: options.shops[merchantId] ?? 0 }, (_, i) => ({ id: i + 1, name: `Shop ${i + 1}` }))),
    reportRows: () => noRows(),
    links: { dashboard: 'https://pay.example.com/dashboard/home', report: 'https://pay.example.com/api/v1/reports/daily' },
    onAccountError: (_err, merchantId) => errors.push(merchantId),
  };
  return { p, queued, errors };
}

test('an account that cannot be read, or a member whose mail cannot be queued, holds back no other', async () => {
  const { p, queued, errors } = ports([member('a', 'a1@x.ru'), member('a', 'a2@x.ru'), member('b', 'b1@x.ru'), member('c', 'c1@x.ru')], {
    shops: { a: 1, b: 1, c: 0 },
    failing: ['b'],
    refused: ['a1@x.ru'],
  });
  expect(await sendDailyReportMails(p, AT_0700)).toEqual({ day: '2026-11-20', queued: 1 });
  expect(queued.map((m) => m.to)).toEqual(['a2@x.ru']);
  expect(errors).toEqual(['a', 'b']);
});

test('names at most 20 shops and counts the rest', async () => {
  const { p, queued } = ports([member('a', 'a1@x.ru')], { shops: { a: 23 } });
  await sendDailyReportMails(p, AT_0700);
  const params = queued[0]?.params;
  expect((JSON.parse(params?.shops ?? '[]') as unknown[]).length).toBe(20);
  expect(params?.more_shops).toBe('3');
  expect(params?.date).toBe('2026-11-20');
});
