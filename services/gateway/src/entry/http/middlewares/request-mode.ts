import type { Request } from 'express';
import { MODE_HEADER, mode as modeSchema, type Mode } from '@pl/contracts';
import type { AppError } from '@pl/errors';
import { validationError } from '../../../domain/validation';

const invalidHeader = (message: string): AppError =>
  validationError([{ field: MODE_HEADER, code: 'invalid_format', message }], `${MODE_HEADER} header`);

/**
 * The mode a request's `Pl-Mode` header names: undefined when there is none. Only `live` and `test`, exactly, are
 * modes; anything else (another case, a list from a repeated header) is 400 `common.err.validation_failed`, so a
 * typo never quietly acts live.
 */
function requestedMode(req: Request): Mode | undefined {
  const value = req.get(MODE_HEADER);
  if (value === undefined) return undefined;
  const parsed = modeSchema.safeParse(value);
  if (!parsed.success) throw invalidHeader('must be live or test');
  return parsed.data;
}

/** A session acts in the mode the request names (the dashboard's live / test switch), live when it names none. */
export const sessionMode = (req: Request): Mode => requestedMode(req) ?? 'live';

/**
 * A key acts in its own mode. A request that names the other one is refused (400) rather than obeyed or ignored:
 * a merchant who believes it is testing must never create a live link, nor one who believes it is live a test one.
 */
export function credentialMode(req: Request, credential: Mode): Mode {
  const requested = requestedMode(req);
  if (requested !== undefined && requested !== credential) {
    throw invalidHeader(`${requested} does not match the ${credential} credential; ${requested} mode takes ${requested} keys`);
  }
  return credential;
}
