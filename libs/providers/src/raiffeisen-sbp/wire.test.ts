import type { CreatePaymentRequest } from '../provider';
import { cutTo, paymentStatusOf, qrPaymentDetails, refundBody, refundStatusOf, refusalMessage, registerQrBody } from './wire';

const attempt = (over: Partial<CreatePaymentRequest> = {}): CreatePaymentRequest => ({
  orderId: '8f0c2a4e-5b61-4d0e-9a35-0c1e2f3a4b5c-1',
  linkId: '8f0c2a4e-5b61-4d0e-9a35-0c1e2f3a4b5c',
  method: 'sbp',
  network: null,
  payerAmountKopecks: 111011,
  description: 'Назначение платежа',
  merchantOrderId: '1-22-333',
  // The documented example's qrExpirationDate, 2023-07-22T09:14:38+03:00.
  expiresAt: new Date('2023-07-22T06:14:38.512Z'),
  returnUrl: null,
  ...over,
});

describe('Raiffeisen register request', () => {
  it('has the fields of the documented QRDynamic example, amount in roubles as a JSON number', () => {
    const text = registerQrBody(attempt(), 'MA0000000552');
    expect(JSON.parse(text)).toEqual({
      qrType: 'QRDynamic',
      order: '8f0c2a4e-5b61-4d0e-9a35-0c1e2f3a4b5c-1',
      sbpMerchantId: 'MA0000000552',
      amount: 1110.11,
      currency: 'RUB',
      qrExpirationDate: '2023-07-22T09:14:38+03:00',
      paymentDetails: 'Назначение платежа',
    });
    expect(text).toContain('"amount":1110.11,');
  });

  it.each([
    [125919, '"amount":1259.19,'],
    [10050, '"amount":100.5,'],
    [100, '"amount":1,'],
  ])('writes %i kopecks as %s', (kopecks, fragment) => {
    expect(registerQrBody(attempt({ payerAmountKopecks: kopecks }), 'MA0000000552')).toContain(fragment);
  });

  it('writes the expiry in Moscow time whatever the hour in UTC', () => {
    const body = JSON.parse(registerQrBody(attempt({ expiresAt: new Date('2026-12-31T22:30:00.900Z') }), 'MA0000000552'));
    expect(body.qrExpirationDate).toBe('2027-01-01T01:30:00+03:00');
  });

  it('cuts the description to 185 characters without splitting a character', () => {
    const long = `${'я'.repeat(184)}😀tail`;
    const details = qrPaymentDetails(attempt({ description: long }));
    expect(details).toBe('я'.repeat(184));
    expect(qrPaymentDetails(attempt({ description: 'x'.repeat(300) }))).toHaveLength(185);
  });

  it('turns line breaks and bidi controls of a description into plain spaces', () => {
    expect(qrPaymentDetails(attempt({ description: 'Coffee\r\n\u202Ex2\u0000' }))).toBe('Coffee x2');
  });

  it("falls back to 'Order <order_id>' without a description, the attempt's order id without a merchant one", () => {
    expect(qrPaymentDetails(attempt({ description: null }))).toBe('Order 1-22-333');
    expect(qrPaymentDetails(attempt({ description: '  \n ', merchantOrderId: null }))).toBe('Order 8f0c2a4e-5b61-4d0e-9a35-0c1e2f3a4b5c-1');
  });

  it('cuts by UTF-16 units, as the bank counts', () => {
    expect(cutTo('ab😀', 3)).toBe('ab');
    expect(cutTo('ab😀', 4)).toBe('ab😀');
  });
});

describe('Raiffeisen refund request', () => {
  it('is the documented QRDynamic example: amount, order, refundId, paymentDetails', () => {
    const text = refundBody({
      refundId: 'test_refundId_007',
      orderId: 'test_order_007',
      gatewayPaymentId: 'AD100051KNSNR64I98CRUJUASC9M72QT',
      amountKopecks: 15000,
      whole: true,
      destination: null,
      description: 'Test',
    });
    expect(text).toBe('{"amount":150,"order":"test_order_007","refundId":"test_refundId_007","paymentDetails":"Test"}');
  });

  it('cuts the refund purpose to 140 characters and names the order without one', () => {
    const base = { refundId: 'r', orderId: 'o-1', gatewayPaymentId: 'q', amountKopecks: 1, whole: false, destination: null };
    expect(JSON.parse(refundBody({ ...base, description: 'x'.repeat(200) })).paymentDetails).toHaveLength(140);
    expect(JSON.parse(refundBody({ ...base, description: null }))).toEqual({
      amount: 0.01,
      order: 'o-1',
      refundId: 'r',
      paymentDetails: 'Refund of order o-1',
    });
  });
});

describe('Raiffeisen words', () => {
  it.each([
    ['SUCCESS', 'paid'],
    ['DECLINED', 'declined'],
    ['IN_PROGRESS', 'unpaid'],
    ['NO_INFO', 'unpaid'],
    ['PAID', undefined],
  ])('paymentStatus %s is %s', (word, status) => {
    expect(paymentStatusOf(word)).toBe(status);
  });

  it.each([
    ['IN_PROGRESS', 'pending'],
    ['COMPLETED', 'succeeded'],
    ['DECLINED', 'failed'],
    ['SUCCESS', undefined],
  ])('refundStatus %s is %s', (word, status) => {
    expect(refundStatusOf(word)).toBe(status);
  });

  it('passes on the message of a documented error, without control characters', () => {
    expect(refusalMessage({ code: 'ERROR.INVALID_ORDER', message: 'В номере заказа поддерживаются A-z09_-.' }, 400)).toBe(
      'В номере заказа поддерживаются A-z09_-.',
    );
    expect(refusalMessage({ code: 'ERROR.X', message: 'bad\u001b[31m\nthing\u202E' }, 400)).toBe('bad [31m thing');
    expect(refusalMessage({ code: 'ERROR.NOT_FOUND' }, 404)).toBe('ERROR.NOT_FOUND');
    expect(refusalMessage(undefined, 400)).toBe('HTTP 400');
    expect(refusalMessage({ message: 'x'.repeat(1000) }, 400)).toHaveLength(300);
  });
});
