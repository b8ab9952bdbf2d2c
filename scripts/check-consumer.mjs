// A fresh consumer project installs the packed tarball as a user would (`npm install toolkit-agent`,
// no optional peer dependency), imports the package by its name and every published subpath, and
// finds that a feature whose optional package is missing says which package to install.
// Prints the size of the consumer's node_modules and its package count (`--json` for a script).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'toolkit-agent-consumer-'));
const run = (command, args, cwd = dir) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const tarball = join(
    dir,
    run('npm', ['pack', '--silent', '--pack-destination', dir], root).trim().split('\n').pop(),
  );
  const app = join(dir, 'app');
  run('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball], app);

  const optional = Object.keys(manifest.peerDependenciesMeta ?? {});
  const present = optional.filter((name) => {
    try {
      execFileSync('node', ['-e', `require.resolve(${JSON.stringify(name + '/package.json')})`], {
        cwd: app,
        stdio: 'ignore',
      });
      return true;
    } catch {
      return false;
    }
  });
  assert.deepEqual(present, [], `optional peer dependencies were installed with the package: ${present}`);

  const subpaths = Object.keys(manifest.exports).filter((key) => !key.endsWith('.json'));
  const probe = `
    for (const subpath of ${JSON.stringify(subpaths)}) await import(subpath === '.' ? 'toolkit-agent' : 'toolkit-agent' + subpath.slice(1));
    const { PostgresMemoryStore, MissingDependencyError } = await import('toolkit-agent');
    const store = new PostgresMemoryStore({ connectionString: 'postgres://127.0.0.1:1/none' });
    const error = await store.read('s').then(() => undefined, (caught) => caught);
    if (!(error instanceof MissingDependencyError) || !/npm install pg@/.test(error.message)) throw error ?? new Error('no error');
    console.log(error.message);
    const { serveMcp } = await import('toolkit-agent/mcp');
    const mcp = await serveMcp({ agents: {}, transport: 'stdio' }).then(() => undefined, (caught) => caught);
    if (!(mcp instanceof MissingDependencyError) || !mcp.message.includes('npm install @modelcontextprotocol/sdk@')) throw mcp ?? new Error('no error');
    console.log(mcp.message);
  `;
  writeFileSync(join(app, 'probe.mjs'), probe);
  const said = run('node', ['probe.mjs'], app);
  console.log(`ok every subpath imports; a missing optional package is named: ${said.trim()}`);

  const kib = Number(run('du', ['-sk', 'node_modules'], app).split('\t')[0]);
  const packages = run('npm', ['ls', '--all', '--parseable'], app).trim().split('\n').length - 1;
  const figures = { node_modules_mib: Math.round(kib / 102.4) / 10, packages };
  console.log(
    process.argv.includes('--json')
      ? JSON.stringify(figures)
      : `fresh install: ${figures.node_modules_mib} MiB in node_modules, ${packages} packages`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
