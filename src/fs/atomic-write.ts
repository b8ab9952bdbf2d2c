import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `path` with `text` atomically: a temporary file beside it, fsync, rename, fsync of the
 * folder. Readers see the old file or the new one, never half of either, even after a crash.
 * The file gets `mode` when one is given; otherwise an existing file keeps its mode (an executable
 * script stays executable) and a new file gets 0644, whatever the process umask.
 */
export async function writeFileAtomic(path: string, text: string, mode?: number): Promise<void> {
  const finalMode = mode ?? (await existingMode(path)) ?? 0o644;
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.chmod(finalMode);
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const folder = await open(dirname(path), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** The permission bits of the file at `path`, or undefined when there is none. */
async function existingMode(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
