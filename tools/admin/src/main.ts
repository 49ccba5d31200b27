import { runCli } from './cli';

/** Operators' CLI: exactly one JSON object on stdout on success; a JSON error on stderr and a non-zero exit otherwise. */
void runCli(process.argv.slice(2)).then((outcome) => {
  if (outcome.ok) {
    process.stdout.write(`${JSON.stringify(outcome.result)}\n`);
    return;
  }
  const { code, message, details } = outcome.error;
  process.stderr.write(`${JSON.stringify({ error: details === undefined ? { code, message } : { code, message, details } })}\n`);
  process.exitCode = outcome.exitCode;
});
