import { renderOutcome, runCli } from './cli';
import type { CliIo } from './secrets';

const io: CliIo = {
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  },
  warn(message) {
    process.stderr.write(`${message}\n`);
  },
};

/**
 * Operators' CLI: exactly one JSON object on stdout on success; a JSON error as the last line of stderr and a
 * non-zero exit otherwise (warnings, if any, come before it). `--help` prints text on stdout and exits 0.
 */
void runCli(process.argv.slice(2), process.env, io).then((outcome) => {
  const { stdout, stderr, exitCode } = renderOutcome(outcome);
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exitCode = exitCode;
});
