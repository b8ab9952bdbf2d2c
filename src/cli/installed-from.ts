import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This package's folder (the one holding dist/, src/ and package.json), links resolved. */
const PACKAGE_ROOT = realpathSync(fileURLToPath(new URL('../../', import.meta.url)));

/**
 * The dependency a new project should name for toolkit-agent: where this CLI itself came from, so
 * the project installs the same package. Installed from a registry: `^version`. Installed from a
 * tarball or a folder (`npm install ./toolkit-agent-0.1.0.tgz`, `npx --package <tarball>`): that
 * tarball or folder as an absolute `file:` path, read from the lock file npm wrote beside it. Run
 * from a clone (or a linked folder): the clone, `file:<folder>`.
 */
export function installedSpec(version: string, packageRoot: string = PACKAGE_ROOT): string {
  const modules = dirname(packageRoot);
  if (basename(modules) !== 'node_modules') return `file:${packageRoot}`;
  const project = dirname(modules);
  // npm's hidden lock file is written by every install (npx's cache too); the project's may be older.
  for (const lock of [join(modules, '.package-lock.json'), join(project, 'package-lock.json')]) {
    const resolved = lockedResolved(lock, `node_modules/${basename(packageRoot)}`);
    if (resolved === undefined) continue;
    // `file:` paths in a lock file are relative to the folder that holds node_modules.
    return resolved.startsWith('file:') ? `file:${resolve(project, resolved.slice(5))}` : `^${version}`;
  }
  return `^${version}`;
}

/** Where the lock file says the package at `key` was installed from, if it says. */
function lockedResolved(lockPath: string, key: string): string | undefined {
  let lock: { packages?: Record<string, { resolved?: unknown }> };
  try {
    lock = JSON.parse(readFileSync(lockPath, 'utf8')) as typeof lock;
  } catch {
    return undefined; // no lock file there (or not one npm wrote): the next place, else the registry
  }
  const resolved = lock.packages?.[key]?.resolved;
  return typeof resolved === 'string' ? resolved : undefined;
}
