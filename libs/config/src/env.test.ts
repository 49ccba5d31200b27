import { flag, intSetting, kafkaTopic, port } from './env';

describe('environment building blocks', () => {
  it('reads a flag only from exactly true or false, false when unset', () => {
    expect(flag.parse(undefined)).toBe(false);
    expect(flag.parse('true')).toBe(true);
    expect(flag.parse('false')).toBe(false);
    for (const typo of ['1', 'yes', 'TRUE', '']) expect(flag.safeParse(typo).success).toBe(false);
  });

  it('bounds an integer setting on both sides and takes the default when unset', () => {
    const setting = intSetting({ min: 10, max: 100, default: 50 });
    expect(setting.parse(undefined)).toBe(50);
    expect(setting.parse('10')).toBe(10);
    for (const bad of ['9', '101', '1.5', 'ten']) expect(setting.safeParse(bad).success).toBe(false);
  });

  it('leaves an integer setting without a maximum unbounded above', () => {
    expect(intSetting({ min: 1, default: 5 }).parse('1000000')).toBe(1_000_000);
  });

  it('accepts ports 0..65535', () => {
    expect(port(8080).parse(undefined)).toBe(8080);
    expect(port(8080).parse('0')).toBe(0);
    expect(port(8080).safeParse('65536').success).toBe(false);
  });

  it('accepts Kafka topic names only', () => {
    expect(kafkaTopic('payment-events').parse(undefined)).toBe('payment-events');
    expect(kafkaTopic('t').safeParse('a topic').success).toBe(false);
  });
});
