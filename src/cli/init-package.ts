import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { installedSpec } from './installed-from.ts';

interface Manifest {
  name?: string;
  version?: string;
  type?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  overrides?: Record<string, unknown>;
}

/** toolkit-agent's own package.json (next to dist/ and src/). */
function ours(): Manifest {
  return createRequire(import.meta.url)('../../package.json') as Manifest;
}

/**
 * What a project needs to run the config `init` writes: toolkit-agent, the offline model's runtime,
 * zod (the config's tool declares its arguments with it) and ai (the studio's chat, like any
 * `useChat` page, speaks the AI SDK's UI message stream).
 */
export function projectDependencies(): Record<string, string> {
  const manifest = ours();
  return {
    'toolkit-agent': installedSpec(manifest.version ?? '0.0.0'),
    'node-llama-cpp': manifest.peerDependencies?.['node-llama-cpp'] ?? 'latest',
    zod: manifest.dependencies?.zod ?? 'latest',
    ai: manifest.peerDependencies?.ai ?? 'latest',
  };
}

/** The empty package that stands in for node-llama-cpp's GPU builds, in the project folder. */
export const NO_GPU_FOLDER = 'no-gpu';

/**
 * node-llama-cpp's prebuilt GPU builds (about 600 MB of CUDA and Vulkan on Linux x64), which the
 * offline model never loads (it runs on the CPU): npm's `overrides` point them at an empty package.
 */
const GPU_BUILDS = [
  'linux-x64-cuda',
  'linux-x64-cuda-ext',
  'linux-x64-vulkan',
  'win-x64-cuda',
  'win-x64-cuda-ext',
  'win-x64-vulkan',
];

/** The `overrides` that leave node-llama-cpp's GPU builds out of `npm install`. */
export function gpuOverrides(): Record<string, string> {
  return Object.fromEntries(GPU_BUILDS.map((name) => [`@node-llama-cpp/${name}`, `file:./${NO_GPU_FOLDER}`]));
}

/** The empty package the {@link gpuOverrides} point at: its package.json, in `dir`. */
export function noGpuPackage(dir: string): { path: string; text: string } {
  return {
    path: join(dir, NO_GPU_FOLDER, 'package.json'),
    text: `${JSON.stringify({ name: NO_GPU_FOLDER, version: '1.0.0', private: true, description: "Stands in for node-llama-cpp's GPU builds (see overrides in ../package.json)." }, null, 2)}\n`,
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
      // The project's own Node (24): npm scripts put node_modules/.bin first on PATH, so `npm start`
      // runs the TypeScript sources on it even where an older Node is the system's.
      node: manifest.devDependencies?.node ?? '^24.15.0',
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
        overrides: gpuOverrides(),
      }
    : {
        name,
        private: true,
        type: 'module',
        dependencies: { ...projectDependencies(), ...providerDependencies() },
        overrides: gpuOverrides(),
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
  const overrides = Object.entries(gpuOverrides()).filter(([name]) => !(name in (manifest.overrides ?? {})));
  if (overrides.length && 'node-llama-cpp' in { ...have, ...manifest.dependencies }) {
    manifest.overrides = { ...manifest.overrides, ...Object.fromEntries(overrides) };
    changes.push(
      `overrides: node-llama-cpp's GPU builds point at ./${NO_GPU_FOLDER} (the offline model runs on the CPU)`,
    );
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
