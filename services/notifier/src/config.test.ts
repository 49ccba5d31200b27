import { DEFAULT_WEBHOOK_RETRY_DELAYS_MS, loadConfig } from './config';

describe('notifier configuration', () => {
  it('defaults to the ops port 9103, the 8-attempt schedule, a 10 s time-out and no private targets', () => {
    const config = loadConfig({});
    expect(config.OPS_PORT).toBe(9103);
    expect(config.WEBHOOK_RETRY_DELAYS_MS).toEqual(DEFAULT_WEBHOOK_RETRY_DELAYS_MS);
    expect(config.WEBHOOK_RETRY_DELAYS_MS).toHaveLength(7);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(config.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
  });

  it('defaults the consumer group, topic, session and the delivery bounds', () => {
    expect(loadConfig({})).toMatchObject({
      KAFKA_GROUP_ID: 'notifier',
      PAYMENT_EVENTS_TOPIC: 'payment-events',
      KAFKA_SESSION_TIMEOUT_MS: 10_000,
      WEBHOOK_MIN_DELAY_AFTER_THROTTLE_MS: 60_000,
      WEBHOOK_CONCURRENCY: 1000,
      WEBHOOK_PER_ENDPOINT_CONCURRENCY: 20,
      WEBHOOK_POLL_INTERVAL_MS: 500,
      WEBHOOK_LEASE_MS: 60_000,
    });
  });

  it('keeps events 30 days and deliveries 90 (ADR 22), and refuses a delivery retention shorter than a week, naming it', () => {
    expect(loadConfig({})).toMatchObject({ EVENT_RETENTION_DAYS: 30, DELIVERY_RETENTION_DAYS: 90 });
    expect(loadConfig({ DELIVERY_RETENTION_DAYS: '365' }).DELIVERY_RETENTION_DAYS).toBe(365);
    expect(() => loadConfig({ DELIVERY_RETENTION_DAYS: '3' })).toThrow(/DELIVERY_RETENTION_DAYS/);
  });

  it('reads a shrunk retry schedule, a time-out and the private-target switch', () => {
    const config = loadConfig({ WEBHOOK_RETRY_DELAYS_MS: '0, 10,20,30,40,50,60', WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    expect(config.WEBHOOK_RETRY_DELAYS_MS).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(500);
    expect(config.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
  });

  it.each([
    ['six delays', '1,2,3,4,5,6'],
    ['eight delays', '1,2,3,4,5,6,7,8'],
    ['a negative delay', '1,2,3,-4,5,6,7'],
    ['a fractional delay', '1,2,3,4.5,5,6,7'],
    ['an empty item', '1,2,,4,5,6,7'],
  ])('refuses WEBHOOK_RETRY_DELAYS_MS with %s', (_situation, value) => {
    expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS_MS: value })).toThrow(/WEBHOOK_RETRY_DELAYS_MS/);
  });

  it.each([
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_TIMEOUT_MS', 'soon'],
    ['WEBHOOK_ALLOW_PRIVATE_TARGETS', 'yes'],
    ['WEBHOOK_CONCURRENCY', '0'],
    ['WEBHOOK_PER_ENDPOINT_CONCURRENCY', '-1'],
    ['KAFKA_SESSION_TIMEOUT_MS', '100'],
    ['OPS_PORT', '70000'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  describe('in production', () => {
    const production = { NODE_ENV: 'production', IDENTITY_TOKEN_SECRET: 'i'.repeat(40) };

    it('starts with private targets refused and its own identity secret', () => {
      expect(loadConfig(production).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
    });

    it('refuses WEBHOOK_ALLOW_PRIVATE_TARGETS=true, naming it', () => {
      expect(() => loadConfig({ ...production, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(
        /WEBHOOK_ALLOW_PRIVATE_TARGETS must be false in production/,
      );
    });

    it('refuses the development identity secret, naming it', () => {
      expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/IDENTITY_TOKEN_SECRET must be set in production/);
    });
  });

  it('refuses a lease shorter than an attempt can take', () => {
    expect(() => loadConfig({ WEBHOOK_LEASE_MS: '5000', WEBHOOK_TIMEOUT_MS: '10000' })).toThrow(/WEBHOOK_LEASE_MS/);
  });
});
