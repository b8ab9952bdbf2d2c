// A fresh project that installs the packed package as a user would: `npm pack` of this repository,
// then `npm install <tarball>` (and any `extra` packages) in an empty folder with "type": "module".
// Shared by check-consumer.mjs and the tests of a first run from the tarball.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;
export const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Runs a command; its standard output as text (standard error goes to ours). */
export function run(command, args, cwd, env = process.env) {
  return execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/**
 * `npm pack` of this repository into `dir` (a new temporary folder by default): the tarball's path.
 * When TOOLKIT_AGENT_TARBALL names a tarball packed from this build (CI packs once after building),
 * that one is used instead: packing builds the package again.
 */
export function pack(dir = mkdtempSync(join(tmpdir(), 'toolkit-agent-pack-'))) {
  const packed = process.env.TOOLKIT_AGENT_TARBALL;
  if (packed) {
    if (!existsSync(packed)) throw new Error(`TOOLKIT_AGENT_TARBALL names ${packed}, which does not exist.`);
    return packed;
  }
  return join(
    dir,
    run('npm', ['pack', '--silent', '--pack-destination', dir], root).trim().split('\n').pop(),
  );
}

/** The version of a package installed here (our devDependencies), to give the consumer the same one. */
export function ourVersion(name) {
  return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/**
 * A folder with `app/` (package.json "type": "module", the tarball and `extra` installed): `dir`, made
 * if missing, or a new temporary one. Call `remove()` when done with it.
 */
export function consumerProject({
  extra = [],
  tarball,
  dir = mkdtempSync(join(tmpdir(), 'toolkit-agent-consumer-')),
} = {}) {
  const app = join(dir, 'app');
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const packed = tarball ?? pack(dir);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', packed, ...extra], app);
  return { dir, app, tarball: packed, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The environment variable naming where `npm run check:consumer` keeps its project (CI sets it), so
 * that tests needing the packed package installed link that project's node_modules instead of
 * installing the package again.
 */
export const INSTALLED_PROJECT = 'TOOLKIT_AGENT_INSTALLED_PROJECT';

/**
 * The node_modules of the project check:consumer kept (see INSTALLED_PROJECT) when it holds `tarball`,
 * else undefined (the variable unset). Throws, saying what to do, when the project holds another one.
 */
export function installedNodeModules(tarball) {
  const dir = process.env[INSTALLED_PROJECT];
  if (!dir) return undefined;
  const app = join(dir, 'app');
  const manifestFile = join(app, 'package.json');
  const installed = existsSync(manifestFile)
    ? JSON.parse(readFileSync(manifestFile, 'utf8')).dependencies?.['toolkit-agent']
    : undefined;
  // npm writes the tarball's path relative to the project: `file:../../pack/toolkit-agent-0.1.0.tgz`.
  if (!installed?.startsWith('file:') || resolve(app, installed.slice(5)) !== resolve(tarball)) {
    throw new Error(
      `${INSTALLED_PROJECT}=${dir}: ${manifestFile} ${installed ? `installs ${installed}` : 'is missing'}, ` +
        `not file:${tarball}. Run \`${INSTALLED_PROJECT}=${dir} npm run check:consumer\` with the same ` +
        `TOOLKIT_AGENT_TARBALL, or unset ${INSTALLED_PROJECT}.`,
    );
  }
  return join(app, 'node_modules');
}
