import { phpJsonEncode } from './php-json';
import { heleketSign, signatureMatches } from './signature';

// Expected texts and signatures computed apart from this code (Python: json.dumps(..., separators=(',', ':'))
// with '/' replaced by '\/', then md5(base64(text) + key)), by the rule of the provider's published API (docs/providers.md).
const PAYMENT_KEY = 'test-payment-key-0f3c';
const PAYOUT_KEY = 'test-payout-key-7a1e';

describe('Heleket request signatures', () => {
  it('signs the create body as PHP json_encode writes it, slashes escaped', () => {
    const body = phpJsonEncode({
      amount: '1259.19',
      currency: 'RUB',
      order_id: '8d5b6c1e-3f4a-4b2c-9d7e-1a2b3c4d5e6f-1',
      to_currency: 'USDT',
      network: 'tron',
      url_callback: 'https://pay.example.com/callbacks/v1/heleket',
      url_return: 'https://shop.example.com/thanks?o=42',
      url_success: 'https://shop.example.com/thanks?o=42',
      lifetime: 3600,
      is_payment_multiple: true,
      additional_data: '8d5b6c1e-3f4a-4b2c-9d7e-1a2b3c4d5e6f',
    });
    expect(body).toBe(
      '{"amount":"1259.19","currency":"RUB","order_id":"8d5b6c1e-3f4a-4b2c-9d7e-1a2b3c4d5e6f-1","to_currency":"USDT","network":"tron",' +
        '"url_callback":"https:\\/\\/pay.example.com\\/callbacks\\/v1\\/heleket","url_return":"https:\\/\\/shop.example.com\\/thanks?o=42",' +
        '"url_success":"https:\\/\\/shop.example.com\\/thanks?o=42","lifetime":3600,"is_payment_multiple":true,' +
        '"additional_data":"8d5b6c1e-3f4a-4b2c-9d7e-1a2b3c4d5e6f"}',
    );
    expect(heleketSign(body, PAYMENT_KEY)).toBe('ff3b84b9044c7361b19bde237186a916');
  });

  it('writes non-ASCII in a request as lowercase \\uXXXX, as json_encode does without flags, and signs those bytes', () => {
    const body = phpJsonEncode({ uuid: '70b8db5c-b2f6-4e51-8ff2-23f1ab4e8b11', address: 'TXyz/1', note: 'Заказ №5 — café' });
    expect(body).toBe(
      '{"uuid":"70b8db5c-b2f6-4e51-8ff2-23f1ab4e8b11","address":"TXyz\\/1","note":"\\u0417\\u0430\\u043a\\u0430\\u0437 \\u21165 \\u2014 caf\\u00e9"}',
    );
    expect(heleketSign(body, PAYMENT_KEY)).toBe('627ee38b01823deff11034f47f6ee9b1');
  });

  it('signs a body-less call over the empty string', () => {
    expect(heleketSign('', PAYMENT_KEY)).toBe('6cb0431cf3c7a5c5ea86f65c4c3dcc9b');
  });

  it('signs a partial refund with the payout key', () => {
    const body = phpJsonEncode({
      uuid: '62f88b36-a9d5-4fa6-aa26-e040c3dbf26d',
      address: 'THgEWubVc8tPKXLJ4VZ5zbiiAK7AgqSeGH',
      is_subtract: true,
      amount: '100.50',
    });
    expect(heleketSign(body, PAYOUT_KEY)).toBe('a06ceb124e45d1371dcb8a77d88ba0f7');
    expect(heleketSign(body, PAYMENT_KEY)).not.toBe('a06ceb124e45d1371dcb8a77d88ba0f7');
  });

  it('matches a signature in either case and refuses a wrong, short or non-hex one', () => {
    expect(signatureMatches('', PAYMENT_KEY, '6CB0431CF3C7A5C5EA86F65C4C3DCC9B')).toBe(true);
    expect(signatureMatches('', PAYMENT_KEY, '6cb0431cf3c7a5c5ea86f65c4c3dcc9a')).toBe(false);
    expect(signatureMatches('', PAYMENT_KEY, '6cb0431cf3c7a5c5')).toBe(false);
    expect(signatureMatches('', PAYMENT_KEY, 'zcb0431cf3c7a5c5ea86f65c4c3dcc9b')).toBe(false);
  });
});
