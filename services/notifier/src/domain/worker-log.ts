type LogMethod = (fields: Record<string, unknown>, message: string) => void;

/** The logging the delivery worker does: pino's shape, so the domain is not tied to pino itself. */
export interface WorkerLog {
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}
