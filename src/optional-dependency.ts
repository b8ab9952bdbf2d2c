import { createRequire } from 'node:module';
import { ConfigurationError } from './errors.ts';

const require = createRequire(import.meta.url);

/**
 * A feature's package is not installed. Packages that only some features need (PostgreSQL's `pg`,
 * `playwright-core`, the HTML-to-Markdown stack, ...) are optional peer dependencies of toolkit-agent:
 * install the one named here to use the feature.
 */
export class MissingDependencyError extends ConfigurationError {
  /** The npm package to install. */
  readonly packageName: string;

  constructor(packageName: string, feature: string, cause: unknown) {
    super(
      `${feature} needs the package "${packageName}", which is not installed. ` +
        `Install it next to toolkit-agent: npm install ${packageName}${versionRange(packageName)}`,
      { cause },
    );
    this.packageName = packageName;
  }
}

/**
 * Loads an optional peer dependency (an ES module import) on first use: `specifier` is the package
 * or one of its subpaths (`@modelcontextprotocol/sdk/client/index.js`).
 */
export async function importOptional<T>(specifier: string, feature: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    const packageName = packageOf(specifier);
    throw notInstalled(error, packageName) ? new MissingDependencyError(packageName, feature, error) : error;
  }
}

/** `@scope/name` or `name`: the package a module specifier belongs to. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

/** Loads an optional peer dependency synchronously (its CommonJS build), for code that cannot wait. */
export function requireOptional<T>(packageName: string, feature: string): T {
  try {
    return require(packageName) as T;
  } catch (error) {
    throw notInstalled(error, packageName) ? new MissingDependencyError(packageName, feature, error) : error;
  }
}

/** Whether an optional peer dependency can be found (next to toolkit-agent), without loading it. */
export function isInstalled(packageName: string): boolean {
  try {
    require.resolve(packageName);
    return true;
  } catch (error) {
    if (notInstalled(error, packageName)) return false;
    throw error;
  }
}

/** Fails at once, naming the package to install, when a feature's package is missing (see {@link isInstalled}). */
export function assertInstalled(packageName: string, feature: string): void {
  if (!isInstalled(packageName)) {
    throw new MissingDependencyError(packageName, feature, new Error(`Cannot find package '${packageName}'`));
  }
}

function notInstalled(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    (message ?? '').includes(`'${packageName}'`)
  );
}

/** `@^8.23.1` for a peer dependency this package declares, so the install gets a version that works. */
function versionRange(packageName: string): string {
  try {
    const manifest = require('../package.json') as { peerDependencies?: Record<string, string> };
    const range = manifest.peerDependencies?.[packageName];
    return range ? `@${range}` : '';
  } catch {
    return '';
  }
}
