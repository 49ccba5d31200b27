import { z } from 'zod';
import { AppError } from '@pl/errors';
import { HOSTILE_CHARACTERS } from '@pl/testing';
import { parseFlags } from './flags';

const options = { name: { type: 'string' }, 'webhook-url': { type: 'string' } } as const;
const schema = z.strictObject({ name: z.string().optional(), 'webhook-url': z.string().optional() });

const errorOf = (args: string[]): AppError => {
  try {
    parseFlags(args, options, schema);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a validation error');
};

describe('parseFlags and the one text rule', () => {
  it.each(HOSTILE_CHARACTERS)('refuses %s in any string flag, naming the flag', (_name, ch) => {
    const error = errorOf(['--name', `Tea${ch}`]);
    expect(error.code).toBe('common.err.validation_failed');
    expect(error.details).toEqual([{ field: 'name', code: 'custom', message: expect.any(String) }]);
    expect(error.message).toMatch(/^--name: /);
  });

  it('lets an empty value through to the command, where it clears a setting', () => {
    expect(parseFlags(['--webhook-url', ''], options, schema)).toEqual({ 'webhook-url': '' });
  });

  it('gives schema problems and unknown flags the same details shape', () => {
    const strict = z.strictObject({ name: z.string().min(3, { message: 'must be at least 3 characters' }) });
    try {
      parseFlags(['--name', 'x'], options, strict);
      throw new Error('expected a validation error');
    } catch (e) {
      expect((e as AppError).details).toEqual([{ field: 'name', code: 'too_small', message: 'must be at least 3 characters' }]);
    }
    const error = errorOf(['--name', 'x', '--name2', 'y']);
    expect(error.details).toEqual([{ field: '', code: 'invalid_flags', message: expect.stringContaining('--name2') }]);
  });
});
