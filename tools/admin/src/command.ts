import type { AdminContext } from './context';
import type { CliIo } from './secrets';

/** One command of the CLI: what it does in a line, its `--help` text, and the work itself. */
export interface Command {
  /** One line for the command list (`--help`). */
  summary: string;
  /** Usage, flags and output, as `<command> --help` prints them. */
  help: string;
  /** Prints nothing itself: returns the one object main.ts writes to stdout. */
  run(args: string[], ctx: AdminContext, io: CliIo): Promise<object>;
  /** A check's verdict on its own result (ledger:verify): the object is printed either way, then exits with this. */
  exitCode?(result: object): number;
}
