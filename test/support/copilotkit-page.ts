import { execFile } from 'node:child_process';
import { isDeepStrictEqual, promisify } from 'node:util';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';

const exec = promisify(execFile);

/**
 * What a CopilotKit page installs, pinned (`@copilotkit/react-core` brings its own `@ag-ui/client`,
 * 0.0.59 for 1.74.0, and exports its `HttpAgent`), with React's types to check the page against.
 */
export const COPILOTKIT_PACKAGES = {
  '@copilotkit/react-core': '1.74.0',
  react: '19.3.1',
  'react-dom': '19.3.1',
  '@types/react': '19.3.3',
  '@types/react-dom': '19.3.0',
} as const;

/**
 * Installs CopilotKit from the registry into `dir`, a project of its own (its own package.json and
 * node_modules; npm's cache is reused), as a user's app would: never this repository's lockfile or
 * node_modules. Answers how long `npm install` took.
 */
export async function installCopilotKit(dir: string): Promise<{ ms: number }> {
  const manifest = {
    name: 'copilotkit-page',
    private: true,
    type: 'module',
    dependencies: COPILOTKIT_PACKAGES,
  };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const started = performance.now();
  try {
    await exec(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel=error'],
      {
        cwd: dir,
        timeout: 600_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  } catch (error) {
    const { stderr = '' } = error as { stderr?: string };
    throw new Error(
      `npm install of CopilotKit in ${dir} failed (is the npm registry reachable?):\n${stderr}`,
      {
        cause: error,
      },
    );
  }
  return { ms: performance.now() - started };
}

/** The environment variable naming a folder `installCopilotKit` already installed (CI does, beside the build). */
export const PREPARED_COPILOTKIT = 'TOOLKIT_AGENT_COPILOTKIT_DIR';

/**
 * Gives `dir` CopilotKit: the packages of the folder ${PREPARED_COPILOTKIT} names, when it is set
 * (linked, so that the install of 950 packages runs once, outside the test run), else an install of
 * its own. Answers how long that took and where the packages came from.
 */
export async function copilotKitProject(dir: string): Promise<{ ms: number; from: string }> {
  const prepared = process.env[PREPARED_COPILOTKIT];
  if (!prepared) return { ...(await installCopilotKit(dir)), from: 'the registry' };
  const started = performance.now();
  const manifest = join(prepared, 'package.json');
  const dependencies = await readFile(manifest, 'utf8').then(
    (text) => (JSON.parse(text) as { dependencies?: unknown }).dependencies,
    () => undefined,
  );
  if (!isDeepStrictEqual(dependencies, COPILOTKIT_PACKAGES)) {
    throw new Error(
      `${PREPARED_COPILOTKIT}=${prepared}: ${manifest} does not name the packages of COPILOTKIT_PACKAGES ` +
        `(test/support/copilotkit-page.ts). Install them there with ` +
        `\`node test/support/install-copilotkit.ts ${prepared}\`, or unset ${PREPARED_COPILOTKIT}.`,
    );
  }
  await writeFile(join(dir, 'package.json'), await readFile(manifest));
  await symlink(join(prepared, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { ms: performance.now() - started, from: prepared };
}

/** The first ```` ```tsx ```` block under the `## <heading>` of a markdown page. */
export async function pageBlock(markdownFile: string, heading: string): Promise<string> {
  const text = await readFile(markdownFile, 'utf8');
  const section = text.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  const block = section && /^```tsx\n([\s\S]*?)^```$/m.exec(section);
  if (!block) throw new Error(`${markdownFile} has no tsx block under "## ${heading}".`);
  return block[1]!;
}

/** Writes `source` to `dir/page.tsx`, beside the installed packages, and answers its path. */
export async function writePage(dir: string, source: string): Promise<string> {
  const entry = join(dir, 'page.tsx');
  await writeFile(entry, source);
  return entry;
}

/**
 * Type-checks the page (strict) against the installed packages' own types, as a bundler project
 * does (the bundler resolves the CSS it imports). Answers each error as `line: message`.
 */
export function typeCheckPage(entry: string): string[] {
  const program = ts.createProgram([entry], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    jsx: ts.JsxEmit.ReactJSX,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    noUncheckedSideEffectImports: false,
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName}:${line + 1}: ${message}`;
  });
}

/**
 * Bundles the page at `entry` with esbuild for the browser: `page.js`, `page.css` and the fonts
 * they name, in `out` beside it. Answers that folder.
 */
export async function bundlePage(entry: string): Promise<string> {
  const outdir = join(dirname(entry), 'out');
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    outdir,
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file' },
    logLevel: 'silent',
  });
  return outdir;
}
