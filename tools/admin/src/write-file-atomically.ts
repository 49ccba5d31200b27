import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `bytes` to `path` so that a reader (an operator picking the file up for the bank's client) sees the whole
 * file or none of it: into a temporary file beside it, flushed to disk, then renamed over `path`. A failure leaves
 * no partial file behind.
 */
export async function writeFileAtomically(path: string, bytes: Buffer): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temp, 'wx', 0o640);
  try {
    await file.writeFile(bytes);
    await file.sync();
    await file.close();
    await rename(temp, path);
  } catch (e) {
    await file.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw e;
  }
}
