import { createRequire } from 'node:module';
import { basename } from 'node:path';

interface Manifest {
  name?: string;
  version?: string;
  type?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** toolkit-agent's own package.json (next to dist/ and src/). */
function ours(): Manifest {
  return createRequire(import.meta.url)('../../package.json') as Manifest;
}

/** What a project needs to run the config `init` writes: toolkit-agent and the offline model's runtime. */
export function projectDependencies(): Record<string, string> {
  const manifest = ours();
  return {
    'toolkit-agent': `^${manifest.version}`,
    'node-llama-cpp': manifest.peerDependencies?.['node-llama-cpp'] ?? 'latest',
  };
}

/** The package.json `init` writes in a folder that has none: an ES module project with the dependencies. */
export function packageJsonFor(dir: string): string {
  const name =
    basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[._-]+/, '') || 'agents';
  const manifest = { name, private: true, type: 'module', dependencies: projectDependencies() };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * What an existing package.json lacks for the config to load and run: `"type": "module"` (else Node
 * warns MODULE_TYPELESS_PACKAGE_JSON on every command) and the dependencies. Each entry is a
 * sentence saying what to do.
 */
export function packageJsonGaps(text: string): string[] {
  const manifest = JSON.parse(text) as Manifest;
  const gaps: string[] = [];
  if (manifest.type !== 'module') gaps.push('add "type": "module" to package.json');
  const have = { ...manifest.devDependencies, ...manifest.dependencies };
  const missing = Object.keys(projectDependencies()).filter((name) => !(name in have));
  if (missing.length) gaps.push(`npm install ${missing.join(' ')}`);
  return gaps;
}
