import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ToolInputError } from '../../errors.ts';

/** Where built-in file and shell tools may work when no `projectRoot` is given (docs/connectors.md). */
export const DEFAULT_PROJECT_ROOT = '/tmp';

/**
 * Resolves `path` inside `root`, following symlinks, and refuses anything that ends up outside it:
 * `..`, absolute paths elsewhere, and symlinks (of the file or of any folder on the way) that lead out.
 * For a path that does not exist yet, the nearest existing folder above it is checked.
 */
export async function resolveInRoot(root: string, path: string): Promise<string> {
  if (typeof path !== 'string' || path.trim() === '') throw new ToolInputError('The path is empty.');
  if (path.includes('\0')) throw new ToolInputError('The path contains a NUL character.');
  const realRoot = await realpath(root);
  const target = resolve(realRoot, path);
  let existing = target;
  let rest = '';
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      rest = rest ? `${existing.slice(parent.length + 1)}${sep}${rest}` : existing.slice(parent.length + 1);
      existing = parent;
    }
  }
  const real = rest ? resolve(existing, rest) : existing;
  const inside = relative(realRoot, real);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new ToolInputError(
      `The path ${JSON.stringify(path)} leads outside the project root ${realRoot}; use a path inside it.`,
    );
  }
  return real;
}

/** A path as the model should see it: relative to the root. */
export function shown(root: string, absolute: string): string {
  return relative(root, absolute) || '.';
}
