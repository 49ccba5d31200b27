import { bankAccountProblems, cryptoAddressProblems, maskedDestination } from './payout-destination-rules';

const BANK = { recipient_name: 'ООО «Ромашка»', inn: '7707083893', kpp: '773601001', bik: '044525225', account: '40702810238000001234' };
const fields = (details: typeof BANK | Record<string, unknown>): string[] => bankAccountProblems(details as typeof BANK).map((p) => p.field);

describe('bankAccountProblems', () => {
  it('passes an organisation with its KPP and a person without one', () => {
    expect(bankAccountProblems(BANK)).toEqual([]);
    expect(bankAccountProblems({ ...BANK, inn: '500100732259', kpp: null })).toEqual([]);
  });

  it('names each field whose shape is wrong', () => {
    expect(fields({ ...BANK, inn: '77070838' })).toEqual(['bank_account.inn']);
    expect(fields({ ...BANK, kpp: null })).toEqual(['bank_account.kpp']);
    expect(fields({ ...BANK, kpp: '7736010' })).toEqual(['bank_account.kpp']);
    expect(fields({ ...BANK, inn: '500100732259' })).toEqual(['bank_account.kpp']);
    expect(fields({ ...BANK, bik: '04452522A' })).toEqual(['bank_account.bik']);
    expect(fields({ ...BANK, account: '4070281023800000123' })).toEqual(['bank_account.account']);
    expect(fields({ ...BANK, recipient_name: '  ' })).toEqual(['bank_account.recipient_name']);
  });
});

describe('cryptoAddressProblems', () => {
  it('checks the address as a crypto refund does, naming crypto_address.address', () => {
    expect(cryptoAddressProblems({ network: 'USDT-TRC20', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' })).toEqual([]);
    expect(cryptoAddressProblems({ network: 'USDT-ERC20', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' })).toEqual([
      { field: 'crypto_address.address', message: 'is not a valid USDT-ERC20 address' },
    ]);
  });
});

it('masks an account to its last four digits and an address to its first six and last four characters', () => {
  expect(maskedDestination({ type: 'bank_account', bank_account: BANK })).toBe('•••• 1234');
  expect(
    maskedDestination({ type: 'crypto_address', crypto_address: { network: 'USDT-TRC20', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' } }),
  ).toBe('TR7NHq…Lj6t');
});
