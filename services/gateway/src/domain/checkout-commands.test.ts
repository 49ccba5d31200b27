import { isAppError } from '@pl/errors';
import { simulatePaymentBody } from '@pl/contracts';
import {
  listDeliveriesInput,
  selectMethodInput,
  toDeliveryId,
  toSelectCommand as toCommand,
  toSimulateCommand as toSimulate,
} from './checkout-commands';
import { parseOrThrow } from './validation';

/** As the select route does it: the body through its schema first, then the path id. */
const toSelectCommand = (id: string, body: unknown) => toCommand(id, parseOrThrow(selectMethodInput, body, 'Request body'));
/** As the simulate route does it: the body through its schema first, then the path id. */
const toSimulateCommand = (id: string, body: unknown) => toSimulate(id, parseOrThrow(simulatePaymentBody, body, 'Request body'));
const toListDeliveriesCommand = (query: unknown) => parseOrThrow(listDeliveriesInput, query, 'Query');

const ID = '0B9E4D1C-7F2A-4C3B-9D8E-1A2B3C4D5E6F';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (isAppError(e)) return e.code;
    throw e;
  }
  throw new Error('expected an error');
};

describe('toSelectCommand', () => {
  it('builds crypto and SBP commands with a lower-case id', () => {
    expect(toSelectCommand(ID, { method: 'crypto', network: 'USDT-TRC20' })).toEqual({
      id: ID.toLowerCase(),
      method: 'crypto',
      network: 'USDT-TRC20',
    });
    expect(toSelectCommand(ID, { method: 'sbp' })).toEqual({ id: ID.toLowerCase(), method: 'sbp', network: null });
  });

  it('refuses unknown networks, a missing network, a network for SBP and unknown methods with validation_failed', () => {
    for (const body of [
      { method: 'crypto', network: 'DOGE-DOGE' },
      { method: 'crypto' },
      { method: 'sbp', network: 'USDT-TRC20' },
      { method: 'card' },
      { method: 'sbp', extra: 1 },
      [],
      null,
    ]) {
      expect(codeOf(() => toSelectCommand(ID, body))).toBe('common.err.validation_failed');
    }
  });

  it('answers not_found for a path id that is not a UUID, after the body is valid', () => {
    expect(codeOf(() => toSelectCommand('not-a-uuid', { method: 'sbp' }))).toBe('common.err.not_found');
    expect(codeOf(() => toSelectCommand('not-a-uuid', { method: 'cash' }))).toBe('common.err.validation_failed');
  });
});

describe('toSimulateCommand', () => {
  it('builds a paid or failed command with a lower-case id', () => {
    expect(toSimulateCommand(ID, { status: 'paid' })).toEqual({ id: ID.toLowerCase(), status: 'paid' });
    expect(toSimulateCommand(ID, { status: 'failed' })).toEqual({ id: ID.toLowerCase(), status: 'failed' });
  });

  it('refuses any other status, extra fields and non-objects with validation_failed', () => {
    for (const body of [{ status: 'refunded' }, { status: 'PAID' }, {}, { status: 'paid', amount: '1.00' }, 'paid', [], null]) {
      expect(codeOf(() => toSimulateCommand(ID, body))).toBe('common.err.validation_failed');
    }
  });

  it('answers not_found for a path id that is not a UUID, after the body is valid', () => {
    expect(codeOf(() => toSimulateCommand('not-a-uuid', { status: 'paid' }))).toBe('common.err.not_found');
    expect(codeOf(() => toSimulateCommand('not-a-uuid', { status: 'pending' }))).toBe('common.err.validation_failed');
  });
});

describe('delivery log commands', () => {
  it('applies the default limit and keeps filters', () => {
    expect(toListDeliveriesCommand({})).toEqual({ payment_link_id: null, shop_id: null, status: null, limit: 20, cursor: null });
    expect(toListDeliveriesCommand({ payment_link_id: ID, shop_id: '7', status: 'failed', limit: '5', cursor: 'abc' })).toEqual({
      payment_link_id: ID.toLowerCase(),
      shop_id: 7,
      status: 'failed',
      limit: 5,
      cursor: 'abc',
    });
  });

  it('refuses an out-of-range limit, a malformed link or shop id, an unknown status, repeated or unknown parameters', () => {
    const bad = [
      { limit: '0' },
      { limit: '101' },
      { limit: 'x' },
      { payment_link_id: 'nope' },
      { shop_id: '0' },
      { shop_id: '-1' },
      { shop_id: '1.5' },
      { status: 'delivered' },
      { limit: ['1', '2'] },
      { event: 'payment.succeeded' },
    ];
    for (const q of bad) {
      expect(codeOf(() => toListDeliveriesCommand(q))).toBe('common.err.validation_failed');
    }
  });

  it('answers not_found for a delivery id that is not a UUID', () => {
    expect(codeOf(() => toDeliveryId('123'))).toBe('common.err.not_found');
    expect(toDeliveryId(ID)).toBe(ID.toLowerCase());
  });
});
