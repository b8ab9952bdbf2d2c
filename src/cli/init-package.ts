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

/**
 * What a project needs to run the config `init` writes: toolkit-agent, the offline model's runtime,
 * and zod (the config's tool declares its arguments with it).
 */
export function projectDependencies(): Record<string, string> {
  const manifest = ours();
  return {
    'toolkit-agent': `^${manifest.version}`,
    'node-llama-cpp': manifest.peerDependencies?.['node-llama-cpp'] ?? 'latest',
    zod: manifest.dependencies?.zod ?? 'latest',
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
    : {
        name,
        private: true,
        type: 'module',
        dependencies: { ...projectDependencies(), ...providerDependencies() },
      };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The provider packages the config loads when its API key is set: named so `npm install` brings them. */
export function providerDependencies(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const manifest = ours();
  const wanted: Record<string, string> = {};
  for (const [key, name] of [
    ['ANTHROPIC_API_KEY', '@ai-sdk/anthropic'],
    ['OPENAI_API_KEY', '@ai-sdk/openai'],
  ] as const) {
    if (env[key]) wanted[name] = manifest.devDependencies?.[name] ?? 'latest';
  }
  return wanted;
}

/**
 * An existing package.json, made ready for the config (or the template) to load and run:
 * `"type": "module"` (the config is an ES module; `npm init -y` writes "commonjs"), the template's
 * scripts (a script of the same name is kept and said), and the dependencies it lacks. Answers the
 * new text and one line per change, for the user to read; no change, no lines.
 */
export function updatePackageJson(
  text: string,
  options: { template?: ProjectManifestExtras; env?: NodeJS.ProcessEnv } = {},
): { text: string; changes: string[] } {
  const manifest = JSON.parse(text) as Manifest & { scripts?: Record<string, string> };
  const changes: string[] = [];
  if (manifest.type !== 'module') {
    changes.push(
      `"type": "module" (was ${manifest.type === undefined ? 'unset' : JSON.stringify(manifest.type)})`,
    );
    manifest.type = 'module';
  }
  if (options.template) {
    const scripts = { ...options.template.scripts, typecheck: 'tsc' };
    for (const [name, command] of Object.entries(scripts)) {
      const current = manifest.scripts?.[name];
      if (current === command) continue;
      if (current !== undefined && !/no test specified/.test(current)) {
        changes.push(`kept your script "${name}" (the template's would be: ${command})`);
        continue;
      }
      manifest.scripts = { ...manifest.scripts, [name]: command };
      changes.push(`script "${name}": ${command}`);
    }
  }
  const have = { ...manifest.devDependencies, ...manifest.dependencies };
  const wanted = {
    ...projectDependencies(),
    ...(options.template ? templateDependencies().dependencies : {}),
    ...providerDependencies(options.env),
  };
  const added = Object.entries(wanted).filter(([name]) => !(name in have));
  if (added.length) {
    manifest.dependencies = { ...manifest.dependencies, ...Object.fromEntries(added) };
    changes.push(`dependencies: ${added.map(([name]) => name).join(', ')}`);
  }
  if (options.template) {
    const dev = Object.entries(templateDependencies().devDependencies).filter(([name]) => !(name in have));
    if (dev.length) {
      manifest.devDependencies = { ...manifest.devDependencies, ...Object.fromEntries(dev) };
      changes.push(`devDependencies: ${dev.map(([name]) => name).join(', ')}`);
    }
  }
  return { text: `${JSON.stringify(manifest, null, 2)}\n`, changes };
}
