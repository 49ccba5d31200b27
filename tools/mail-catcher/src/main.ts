import { MailCatcher } from './catcher';

/**
 * Runs the mail catcher as a process, for `npm start` without a mail provider (scripts/start.sh):
 * - `MAIL_CATCHER_SMTP_PORT` (default 1025): the services' `SMTP_URL` is `smtp://127.0.0.1:<port>`;
 * - `MAIL_CATCHER_HTTP_PORT` (default 1080): caught mail is at `http://127.0.0.1:<port>/`.
 */

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`${name} must be a port number`);
  return value;
}

async function main(env: NodeJS.ProcessEnv): Promise<void> {
  const catcher = await MailCatcher.start({
    smtpPort: port(env, 'MAIL_CATCHER_SMTP_PORT', 1025),
    httpPort: port(env, 'MAIL_CATCHER_HTTP_PORT', 1080),
  });
  process.stdout.write(`mail catcher: SMTP_URL=${catcher.smtpUrl}; caught mail at ${catcher.httpUrl}/ (JSON: ${catcher.httpUrl}/messages)\n`);
  const stop = () => {
    catcher.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.env).catch((e: unknown) => {
  process.stderr.write(`mail catcher: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
