import { isAppError } from '@pl/errors';
import { signIn, type SignInPorts } from './sign-in';

interface Decision {
  allowed: boolean;
  resetSeconds: number;
}

/** One merchant, alice@example.com with "right-password"; the limiter allows `budget` failures. */
function fakePorts(budget: number) {
  const calls: string[] = [];
  let failures = 0;
  const known = new Set<string>();
  const ports: SignInPorts<Decision> = {
    users: {
      findByLogin: async (email, password) => {
        calls.push(`findByLogin ${email}`);
        return email === 'alice@example.com' && password === 'right-password' ? { id: 'u-1', sessionEpoch: 3 } : null;
      },
      memberships: async (userId) => (userId === 'u-1' ? [{ merchantId: 'm-1' }, { merchantId: 'm-2' }] : []),
      rememberSignInAddress: async (userId, ip) => {
        const isNew = !known.has(`${userId} ${ip}`);
        known.add(`${userId} ${ip}`);
        return isNew;
      },
    },
    audit: {
      record: async (entry) => {
        calls.push(`audit ${entry.type} ${entry.subject ?? ''}`);
      },
    },
    sessions: {
      create: async (userId, merchantId, epoch) => {
        calls.push(`create ${userId} ${merchantId} ${epoch}`);
        return { token: 'token-1', session: { expiresAt: new Date('2026-01-01T12:00:00Z') } };
      },
    },
    limiter: {
      attempt: async (email) => {
        calls.push(`attempt ${email}`);
        failures += 1;
        return { allowed: failures <= budget, resetSeconds: 900 };
      },
      succeeded: async (email) => {
        calls.push(`succeeded ${email}`);
        failures -= 1;
      },
    },
    // No second factor here: the password is enough (the second step is tested through HTTP, tests/integration).
    secondStep: async () => null,
  };
  return { ports, calls };
}

const errorOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (e) {
    if (isAppError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected an error');
};

describe('signIn', () => {
  it('opens a session for the right password and gives the attempt back', async () => {
    const { ports, calls } = fakePorts(1);
    await expect(signIn(ports, { email: 'alice@example.com', password: 'right-password' }, null)).resolves.toEqual({
      outcome: 'signed_in',
      token: 'token-1',
      expiresAt: new Date('2026-01-01T12:00:00Z'),
    });
    expect(calls).toEqual(['attempt alice@example.com', 'findByLogin alice@example.com', 'succeeded alice@example.com', 'create u-1 m-1 3']);
  });

  it('records a sign-in from a new address once, not from a known one', async () => {
    const { ports, calls } = fakePorts(5);
    const credentials = { email: 'alice@example.com', password: 'right-password' };
    await signIn(ports, credentials, '203.0.113.7');
    await signIn(ports, credentials, '203.0.113.7');
    await signIn(ports, credentials, '198.51.100.1');
    expect(calls.filter((c) => c.startsWith('audit'))).toEqual([
      'audit account.sign_in_new_address 203.0.113.7',
      'audit account.sign_in_new_address 198.51.100.1',
    ]);
  });

  it('answers a wrong password and an unknown email with the same error, and keeps both failures counted', async () => {
    const { ports, calls } = fakePorts(5);
    const wrong = await errorOf(signIn(ports, { email: 'alice@example.com', password: 'guess' }, null));
    const unknown = await errorOf(signIn(ports, { email: 'nobody@example.com', password: 'guess' }, null));
    expect(wrong).toEqual(unknown);
    expect(wrong.code).toBe('common.err.unauthorized');
    expect(calls.filter((c) => c.startsWith('succeeded') || c.startsWith('create'))).toEqual([]);
  });

  it('refuses a locked-out email before any password is checked, with the limiter decision', async () => {
    const { ports, calls } = fakePorts(0);
    await expect(signIn(ports, { email: 'alice@example.com', password: 'right-password' }, null)).resolves.toEqual({
      outcome: 'locked_out',
      decision: { allowed: false, resetSeconds: 900 },
    });
    expect(calls).toEqual(['attempt alice@example.com']);
  });
});
