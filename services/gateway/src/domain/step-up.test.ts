import { OPERATIONS } from '@pl/openapi';
import { STEP_UP_ROUTES, stepUpVerdict, STEP_UP_WINDOW_MS, servedWhileEnrolling } from './step-up';

describe('the step-up table', () => {
  it('names exactly the session operations the OpenAPI document marks as needing step-up', () => {
    const documented = OPERATIONS.filter((op) => op.stepUp !== undefined && op.auth === 'session')
      .map((op) => `${op.method.toUpperCase()} ${op.path.replace(/\{(\w+)\}/g, ':$1')}`)
      .sort();
    expect(Object.keys(STEP_UP_ROUTES).sort()).toEqual(documented);
  });

  it('marks as conditional only the refund, whose amount decides, and registering a passkey, which enrolling needs', () => {
    const conditional = Object.entries(STEP_UP_ROUTES).filter(([, e]) => e.condition !== undefined);
    expect(conditional.map(([route, e]) => [route, e.condition])).toEqual([
      ['POST /api/v1/me/2fa/passkeys', 'has_second_factor'],
      ['POST /api/v1/payment-links/:id/refunds', 'refund_over_limit'],
    ]);
  });
});

describe('stepUpVerdict', () => {
  const now = new Date('2026-11-29T10:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);

  it('asks a user with no second factor to enroll one, whatever the session says', () => {
    expect(stepUpVerdict({ enrolled: false, verifiedAt: now }, now)).toBe('two_factor_required');
  });

  it('holds for 10 minutes from the last verified factor, and not a moment more', () => {
    expect(stepUpVerdict({ enrolled: true, verifiedAt: ago(STEP_UP_WINDOW_MS - 1) }, now)).toBe('ok');
    expect(stepUpVerdict({ enrolled: true, verifiedAt: ago(STEP_UP_WINDOW_MS) }, now)).toBe('step_up_required');
    expect(stepUpVerdict({ enrolled: true, verifiedAt: null }, now)).toBe('step_up_required');
  });

  it('counts a time in the future (a skewed clock) as none', () => {
    expect(stepUpVerdict({ enrolled: true, verifiedAt: new Date(now.getTime() + 1000) }, now)).toBe('step_up_required');
  });
});

describe('servedWhileEnrolling', () => {
  it('serves enrolling, /me and signing out, and nothing else', () => {
    for (const p of ['/api/v1/me', '/api/v1/me/2fa/totp', '/api/v1/me/2fa/totp/confirm', '/api/v1/me/2fa/passkeys/x', '/api/v1/auth/logout']) {
      expect([p, servedWhileEnrolling(p)]).toEqual([p, true]);
    }
    for (const p of ['/api/v1/payment-links', '/api/v1/me/2fa/recovery-codes', '/api/v1/api-keys', '/api/v1/me/sessions', '/api/v1/auth/step-up']) {
      expect([p, servedWhileEnrolling(p)]).toEqual([p, false]);
    }
  });
});
