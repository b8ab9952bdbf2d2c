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

/** What a template project adds to the package.json: its scripts. */
export interface ProjectManifestExtras {
  scripts: Record<string, string>;
}

/** The dependencies of a template project beyond {@link projectDependencies}, at the versions we use. */
export function templateDependencies(): {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
} {
  const manifest = ours();
  return {
    dependencies: {
      zod: manifest.dependencies?.zod ?? 'latest',
      // src/model.ts loads one when its API key is set.
      '@ai-sdk/anthropic': manifest.devDependencies?.['@ai-sdk/anthropic'] ?? 'latest',
      '@ai-sdk/openai': manifest.devDependencies?.['@ai-sdk/openai'] ?? 'latest',
    },
    devDependencies: {
      '@types/node': manifest.devDependencies?.['@types/node'] ?? 'latest',
      typescript: manifest.devDependencies?.typescript ?? 'latest',
    },
  };
}

/**
 * The package.json `init` writes in a folder that has none: an ES module project with the
 * dependencies (with `extras`, a template's: its scripts, zod and TypeScript).
 */
export function packageJsonFor(dir: string, extras?: ProjectManifestExtras): string {
  const name =
    basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[._-]+/, '') || 'agents';
  const manifest = extras
    ? {
        name,
        private: true,
        type: 'module',
        scripts: { ...extras.scripts, typecheck: 'tsc' },
        dependencies: { ...projectDependencies(), ...templateDependencies().dependencies },
        devDependencies: templateDependencies().devDependencies,
      }
    : { name, private: true, type: 'module', dependencies: projectDependencies() };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * What an existing package.json lacks for the config to load and run: `"type": "module"` (else Node
 * warns MODULE_TYPELESS_PACKAGE_JSON on every command) and the dependencies. Each entry is a
 * sentence saying what to do.
 */
export function packageJsonGaps(text: string, template = false): string[] {
  const manifest = JSON.parse(text) as Manifest;
  const gaps: string[] = [];
  if (manifest.type !== 'module') gaps.push('add "type": "module" to package.json');
  const have = { ...manifest.devDependencies, ...manifest.dependencies };
  const needed = { ...projectDependencies(), ...(template ? templateDependencies().dependencies : {}) };
  const missing = Object.keys(needed).filter((name) => !(name in have));
  if (missing.length) gaps.push(`npm install ${missing.join(' ')}`);
  return gaps;
}
