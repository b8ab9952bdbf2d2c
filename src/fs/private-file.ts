import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Makes `path` a file only its owner can read and write (0600): created so when missing, and
 * tightened when a group or others could read it (a file an older version created 0644). Missing
 * folders above it are created 0700. Files written later next to it (SQLite's -wal and -shm) take
 * its mode.
 */
export function privateFileSync(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  tighten(path, 0o600);
}

/** Makes `dir` a folder only its owner can enter (0700): created so, or tightened. */
export function privateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir, 0o700);
}

/** Takes group and others' permissions away from `path` (when it exists and is ours). */
export function tighten(path: string, mode: 0o600 | 0o700): void {
  if (!existsSync(path)) return;
  const stat = statSync(path);
  if ((stat.mode & 0o077) === 0 || (process.getuid && stat.uid !== process.getuid())) return;
  chmodSync(path, mode);
}
