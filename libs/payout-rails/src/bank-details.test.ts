import { accountMatchesBik, bankAccountProblems, bikValid, innValid, kppValid, maskBankAccount, type BankAccountDetails } from './bank-details';

// Sberbank's published details: INN 7707083893, KPP 773601001, BIK 044525225, correspondent account
// 30101810400000000225. A client's account at Sberbank is 40702810 + key + 38000012345 here, its key (the 9th digit,
// 9) computed with the Bank of Russia's algorithm, since no client's real account belongs in a test.
const sberbankCompany: BankAccountDetails = {
  recipient_name: 'ООО "Ромашка"',
  inn: '7707083893',
  kpp: '773601001',
  bik: '044525225',
  account: '40702810938000012345',
};
// A sole proprietor: 500100732259 is the 12-digit INN the FNS's own examples use; 40802 is a sole proprietor's account.
const soleProprietor: BankAccountDetails = {
  recipient_name: 'ИП Иванов Иван Иванович',
  inn: '500100732259',
  bik: '044525974',
  account: '40802810400000012345',
};

describe('innValid', () => {
  it("accepts Sberbank's 10-digit INN and a 12-digit individual's INN", () => {
    expect(innValid('7707083893')).toBe(true);
    expect(innValid('7830002293')).toBe(true);
    expect(innValid('500100732259')).toBe(true);
  });

  it('rejects a 10-digit INN whose check digit is off by one', () => {
    expect(innValid('7707083894')).toBe(false);
  });

  it('rejects a 12-digit INN whose 11th or 12th check digit is wrong', () => {
    expect(innValid('500100732269')).toBe(false);
    expect(innValid('500100732258')).toBe(false);
  });

  it('rejects other lengths and anything but digits', () => {
    for (const inn of ['', '770708389', '77070838931', '7707O83893', ' 7707083893', '1234567890123']) expect(innValid(inn)).toBe(false);
  });
});

describe('kppValid', () => {
  it('accepts 9 digits and a KPP whose reason code holds capital Latin letters', () => {
    expect(kppValid('773601001')).toBe(true);
    expect(kppValid('7736AB001')).toBe(true);
  });

  it('rejects lower-case or Cyrillic letters, letters outside positions 5-6 and other lengths', () => {
    for (const kpp of ['7736ab001', '7736АБ001', 'A73601001', '77360100A', '77360100', '7736010010']) expect(kppValid(kpp)).toBe(false);
  });
});

describe('bikValid', () => {
  it('accepts a Russian BIK and rejects one not starting with 04 or not 9 digits', () => {
    expect(bikValid('044525225')).toBe(true);
    expect(bikValid('144525225')).toBe(false);
    expect(bikValid('04452522')).toBe(false);
    expect(bikValid('04452522X')).toBe(false);
  });
});

describe('accountMatchesBik', () => {
  it("holds for an account at a credit institution, keyed with the BIK's last three digits", () => {
    expect(accountMatchesBik('40702810938000012345', '044525225')).toBe(true);
    expect(accountMatchesBik('40802810400000012345', '044525974')).toBe(true);
  });

  it('fails when one digit of the account is mistyped, or the same account is given another bank', () => {
    expect(accountMatchesBik('40702810938000012346', '044525225')).toBe(false);
    expect(accountMatchesBik('40702810938000000000', '044525225')).toBe(false);
    expect(accountMatchesBik('40702810938000012345', '044525974')).toBe(false);
  });

  it('keys an account at a Bank of Russia settlement centre (BIK ending 000) with "0" and the BIK\'s digits 5-6', () => {
    // The Moscow treasury's long-published account at the Bank of Russia's Central Federal District office.
    expect(accountMatchesBik('40101810045250010041', '044525000')).toBe(true);
    expect(accountMatchesBik('40101810045250010042', '044525000')).toBe(false);
  });

  it('is false for a malformed account or BIK rather than throwing', () => {
    expect(accountMatchesBik('4070281093800001234', '044525225')).toBe(false);
    expect(accountMatchesBik('40702810938000012345', '14452522')).toBe(false);
  });
});

describe('bankAccountProblems', () => {
  it('finds nothing wrong with a company at Sberbank or a sole proprietor without a KPP', () => {
    expect(bankAccountProblems(sberbankCompany)).toEqual([]);
    expect(bankAccountProblems(soleProprietor)).toEqual([]);
    expect(bankAccountProblems({ ...soleProprietor, kpp: null })).toEqual([]);
    expect(bankAccountProblems({ ...soleProprietor, kpp: '' })).toEqual([]);
  });

  const fieldsOf = (details: BankAccountDetails): string[] => bankAccountProblems(details).map((p) => p.field);

  it('names the INN when its check digit is wrong, and says so in words a merchant understands', () => {
    const problems = bankAccountProblems({ ...sberbankCompany, inn: '7707083894' });
    expect(problems).toEqual([{ field: 'inn', message: "The INN's check digits do not match: look for a mistyped digit." }]);
  });

  it('names the INN when it is neither 10 nor 12 digits', () => {
    expect(fieldsOf({ ...soleProprietor, inn: '50010073225' })).toEqual(['inn']);
  });

  it('asks a company (10-digit INN) for its KPP', () => {
    const problems = bankAccountProblems({ ...sberbankCompany, kpp: undefined });
    expect(problems.map((p) => p.field)).toEqual(['kpp']);
    expect(problems[0]!.message).toMatch(/needs its KPP/);
  });

  it("names a malformed KPP, and a KPP given with an individual's 12-digit INN", () => {
    expect(fieldsOf({ ...sberbankCompany, kpp: '77360100' })).toEqual(['kpp']);
    expect(fieldsOf({ ...soleProprietor, kpp: '773601001' })).toEqual(['kpp']);
  });

  it("names a BIK that is not a Russian bank's, without also blaming the account for it", () => {
    expect(fieldsOf({ ...sberbankCompany, bik: '144525225' })).toEqual(['bik']);
  });

  it('names the account when it is not 20 digits, or its control key does not hold with the BIK', () => {
    expect(fieldsOf({ ...sberbankCompany, account: '4070281093800001234' })).toEqual(['account']);
    const problems = bankAccountProblems({ ...sberbankCompany, account: '40702810938000012346' });
    expect(problems).toEqual([{ field: 'account', message: "The account number does not match the bank's BIK: check both for a mistyped digit." }]);
  });

  it('names an empty, too long, multi-line or un-bankable recipient name', () => {
    expect(fieldsOf({ ...sberbankCompany, recipient_name: '   ' })).toEqual(['recipient_name']);
    expect(fieldsOf({ ...sberbankCompany, recipient_name: 'Я'.repeat(161) })).toEqual(['recipient_name']);
    expect(fieldsOf({ ...sberbankCompany, recipient_name: 'ООО\nРомашка' })).toEqual(['recipient_name']);
    expect(fieldsOf({ ...sberbankCompany, recipient_name: 'ООО Ромашка 🌼' })).toEqual(['recipient_name']);
    expect(fieldsOf({ ...sberbankCompany, recipient_name: 'Я'.repeat(160) })).toEqual([]);
  });

  it('names every wrong field at once, one problem each', () => {
    const problems = bankAccountProblems({ recipient_name: '', inn: '123', kpp: 'x', bik: '1', account: '2' });
    expect(problems.map((p) => p.field)).toEqual(['recipient_name', 'inn', 'kpp', 'bik', 'account']);
    for (const p of problems) expect(p.message).not.toMatch(/undefined|null|\[object/);
  });
});

describe('maskBankAccount', () => {
  it('shows only the last four digits', () => {
    expect(maskBankAccount('40702810938000012345')).toBe('•••• 2345');
    expect(maskBankAccount('12')).toBe('••••');
  });
});
