import { HTTP_STATUS_BY_KIND, type AppError } from '@pl/errors';
import type { CallbackReply } from './provider';

/** The platform's error shape (`{ error: { code, message, details? } }`) as a callback's answer. */
export function errorReply(error: AppError): CallbackReply {
  const body: { error: { code: string; message: string; details?: unknown } } = { error: { code: error.code, message: error.message } };
  if (error.kind === 'validation' && error.details !== undefined) body.error.details = error.details;
  return { status: HTTP_STATUS_BY_KIND[error.kind], contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
}
