/**
 * Part of `npm start`: runs `npm run build` when dist/ is missing or older than what it is built
 * from (src/, the package and TypeScript configs, the bundlers), so a second `npm start`
 * starts at once and an edited source is never run stale.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const SOURCES = [
  'src',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/bundle-workflows.ts',
  'scripts/bundle-studio.ts',
];
/** Written by tsc (the first step of the build) and by the bundlers (the last). */
const OUTPUTS = ['dist/cli/main.js', 'dist/workflow-bundle.cjs', 'dist/studio/page.js'];

/** The newest modification time of a file, or of any file under a folder. */
function newest(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** When the build that wrote dist/ started, near enough; 0 when one of its outputs is missing. */
function built(): number {
  try {
    return Math.min(...OUTPUTS.map((path) => statSync(join(root, path)).mtimeMs));
  } catch {
    return 0;
  }
}

const source = Math.max(...SOURCES.map((path) => newest(join(root, path))));
if (source > built()) {
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exitCode = build.status ?? 1;
} else {
  console.log('dist/ is up to date with src/: not building again (npm run build forces it).');
}
