import { z } from 'zod';
import { commonEnv, opsPort, parseConfig } from '@pl/config';

const linksEnv = {
  ...commonEnv,
  OPS_PORT: opsPort(9101),
  /** Base of the buyer-facing checkout URL; kept without a trailing slash. */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .default('http://localhost:8080')
    .transform((u) => u.replace(/\/+$/, '')),
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  return parseConfig(linksEnv, env);
}

export type LinksConfig = ReturnType<typeof loadConfig>;
