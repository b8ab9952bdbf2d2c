// A fresh consumer project installs the packed tarball as a user would (`npm install toolkit-agent`,
// no optional peer dependency), imports the package by its name and every published subpath, and
// finds that a feature whose optional package is missing says which package to install. Then, as a
// TypeScript user: the package and the README's agent snippet type-check with `strict`, `nodenext`
// and no `skipLibCheck`, every source map points at a file in the package, and the snippet runs.
// Prints the size of the consumer's node_modules and its package count (`--json` for a script).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { consumerProject, INSTALLED_PROJECT, manifest, ourVersion, root, run } from './consumer-project.mjs';

// Kept where INSTALLED_PROJECT says, for the tests that need the package installed (CI).
const kept = process.env[INSTALLED_PROJECT];
const consumer = consumerProject(kept ? { dir: kept } : {});
const { app } = consumer;
try {
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
  const specifier = (subpath) => (subpath === '.' ? 'toolkit-agent' : 'toolkit-agent' + subpath.slice(1));
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
    const { serveA2a } = await import('toolkit-agent/a2a');
    const a2a = await serveA2a({ agents: {}, transport: { port: 0, bearerToken: 'a2a-consumer-probe-token' } }).then(() => undefined, (caught) => caught);
    if (!(a2a instanceof MissingDependencyError) || !a2a.message.includes('npm install @a2a-js/sdk@')) throw a2a ?? new Error('no error');
    console.log(a2a.message);
    const { createStudio } = await import('toolkit-agent/studio');
    const studio = createStudio({ client: {} });
    for (const [path, type] of [['/', 'text/html'], ['/studio.js', 'text/javascript'], ['/studio.css', 'text/css']]) {
      const answer = await studio(new Request('http://127.0.0.1' + path));
      if (answer.status !== 200 || !answer.headers.get('content-type').startsWith(type)) throw new Error('the studio does not serve ' + path + ' from the package: ' + answer.status + ' ' + (await answer.text()).slice(0, 200));
    }
    console.log('the studio serves its page from the package');
    const { createAgUiHandler } = await import('toolkit-agent/ag-ui');
    let agUi;
    try { agUi = createAgUiHandler({ client: {}, agent: 'probe' }); } catch (caught) { agUi = caught; }
    if (!(agUi instanceof MissingDependencyError) || !agUi.message.includes('npm install @ag-ui/core@')) throw new Error('createAgUiHandler was made without @ag-ui/core: ' + agUi);
    console.log(agUi.message);
    // The offline model without node-llama-cpp: said when the model is made, not at a run's first step.
    const { LocalLlamaModel } = await import('toolkit-agent');
    let made;
    try { made = new LocalLlamaModel({ modelPath: 'model.gguf' }); } catch (caught) { made = caught; }
    if (!(made instanceof MissingDependencyError) || !/npm install node-llama-cpp@/.test(made.message)) throw new Error('LocalLlamaModel was made without node-llama-cpp: ' + made);
  `;
  writeFileSync(join(app, 'probe.mjs'), probe);
  const said = run('node', ['probe.mjs'], app);
  console.log(`ok every subpath imports; a missing optional package is named: ${said.trim()}`);

  const kib = Number(run('du', ['-sk', 'node_modules'], app).split('\t')[0]);
  const packages = run('npm', ['ls', '--all', '--parseable'], app).trim().split('\n').length - 1;
  const figures = { node_modules_mib: Math.round(kib / 102.4) / 10, packages };

  // Source maps: each names sources that the package ships.
  const installed = join(app, 'node_modules', 'toolkit-agent');
  // The package carries its licence and its docs: every relative link of the README resolves inside
  // it (on npm and in node_modules as in the repository); the repository's own scripts stay out.
  assert.ok(existsSync(join(installed, 'LICENSE')), 'the package has no LICENSE');
  assert.ok(!existsSync(join(installed, 'scripts')), 'the package ships the repository scripts/');
  const readmeLinks = [
    ...readFileSync(join(installed, 'README.md'), 'utf8').matchAll(/\]\(((?!https?:|#)[^)#\s]+)/g),
  ];
  const deadLinks = readmeLinks
    .map((link) => link[1])
    .filter((target) => !existsSync(join(installed, target)));
  assert.deepEqual(
    deadLinks,
    [],
    `README links to files the package does not carry: ${deadLinks.join(', ')}`,
  );
  const maps = readdirSync(installed, { recursive: true }).filter((file) => String(file).endsWith('.map'));
  const dangling = maps.flatMap((file) => {
    const { sources } = JSON.parse(readFileSync(join(installed, file), 'utf8'));
    return sources
      .filter((source) => !existsSync(join(installed, dirname(file), source)))
      .map((s) => `${file} → ${s}`);
  });
  assert.deepEqual(
    dangling.slice(0, 5),
    [],
    `${dangling.length} of ${maps.length} source maps point at missing files`,
  );
  console.log(`ok ${maps.length} source maps, each pointing at a file in the package`);

  // TypeScript as a user has it: the same compiler and Node types as ours. (@types/ms comes with
  // toolkit-agent: Temporal's packages import the types of `ms` without depending on them,
  // temporalio/sdk-typescript#1668.)
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '-D',
      `typescript@${ourVersion('typescript')}`,
      `@types/node@${ourVersion('@types/node')}`,
    ],
    app,
  );
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.indexOf('## An agent in a few lines');
  const snippet = /```ts\n([\s\S]*?)```/.exec(readme.slice(section))[1];
  writeFileSync(join(app, 'readme-agent.ts'), snippet);
  // Typed tools: `run` gets the parsed arguments typed by `parameters`; an undeclared field is a
  // compile error (each @ts-expect-error must stay an error, or tsc fails on it), and a class written
  // the old way (no type argument, `args: Record<string, unknown>`) still compiles.
  writeFileSync(
    join(app, 'typed-tools.ts'),
    `import { z } from 'zod';
import { BaseConnectorTool, defineTool, type ToolContext } from 'toolkit-agent';
import { defineTool as defineToolFromSubpath } from 'toolkit-agent/tools/connector_base';

const parameters = z.object({ city: z.string(), days: z.number().int().optional() });

export const weather = defineTool({
  name: 'weather',
  description: 'Weather for a city',
  parameters,
  run(_context, args) {
    const city: string = args.city;
    const days: number | undefined = args.days;
    // @ts-expect-error \`country\` is not declared in parameters
    const country = args.country;
    // @ts-expect-error \`city\` is a string
    const cityAsNumber: number = args.city;
    return { text: \`\${city} \${days ?? 1} \${String(country)} \${cityAsNumber}\`, metadata: {} };
  },
});

class WeatherTool extends BaseConnectorTool<typeof parameters> {
  readonly name = 'weather_class';
  readonly description = 'Weather for a city';
  readonly parameters = parameters;
  async run(_context: ToolContext, args: z.infer<typeof parameters>) {
    // @ts-expect-error \`country\` is not declared in parameters
    const country = args.country;
    return { text: args.city + String(country), metadata: {} };
  }
}

class UntypedTool extends BaseConnectorTool {
  readonly name = 'untyped';
  readonly description = 'A class written before tools were typed';
  readonly parameters = z.object({ q: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>) {
    return { text: String(args.q), metadata: {} };
  }
}

export const tools: BaseConnectorTool[] = [weather, new WeatherTool(), new UntypedTool(), defineToolFromSubpath({
  name: 'noop', description: 'Does nothing', parameters: z.object({}), run: () => ({ text: '', metadata: {} }),
})];
`,
  );
  writeFileSync(
    join(app, 'subpaths.ts'),
    subpaths.map((subpath, i) => `import * as m${i} from '${specifier(subpath)}';`).join('\n') +
      `\nexport const modules = [${subpaths.map((_, i) => `m${i}`).join(', ')}];\n`,
  );
  const compilerOptions = {
    target: 'ES2023',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    noEmit: true,
    types: ['node'],
  };
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }, null, 2));
  try {
    run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', '.'], app);
  } catch (error) {
    throw new Error(
      `The published types do not compile in a strict consumer (no skipLibCheck):\n${error.stdout}`,
      { cause: error },
    );
  }
  console.log(
    `ok the package's types, the README's agent snippet and typed tools compile (strict, nodenext, no skipLibCheck); an undeclared tool argument does not`,
  );

  // The README's snippet runs as written (an embedded Temporal server; our temporal CLI, to skip the download).
  const cli = run(process.execPath, [join(root, 'scripts', 'ensure-temporal.ts')], root).split(' ')[0];
  const home = join(consumer.dir, 'home');
  const output = execFileSync(process.execPath, ['readme-agent.ts'], {
    cwd: app,
    env: {
      ...process.env,
      TEMPORAL_CLI_PATH: cli,
      TOOLKIT_AGENT_HOME: home,
      TOOLKIT_AGENT_CACHE_DIR: join(home, 'cache'),
    },
    encoding: 'utf8',
    timeout: 180_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its tool calls the stand-in the snippet starts, and succeeds.
  assert.match(output, /tool_completed service_status/);
  assert.doesNotMatch(output, /tool_failed/);
  assert.match(output, /run_completed[\s\S]*Billing is up\./);
  console.log("ok the README's agent snippet runs as written, and its tool succeeds");

  // An older Node.js (22.12: undici crashes there, node:sqlite needs a flag) gets one line naming
  // both versions, from the CLI and from an import of the package.
  const old = join(consumer.dir, 'old-node');
  run('mkdir', ['-p', old]);
  writeFileSync(join(old, 'package.json'), JSON.stringify({ name: 'old-node', private: true }));
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', 'node@22.12.0'], old);
  const oldNode = join(old, 'node_modules', '.bin', 'node');
  const cliOnOld = spawnSync(oldNode, [join(app, 'node_modules', '.bin', 'toolkit-agent'), 'run', 'hi'], {
    cwd: app,
    encoding: 'utf8',
  });
  const needs =
    /toolkit-agent needs Node\.js \^22\.22\.2 \|\| \^24\.15\.0 \|\| >=26\.0\.0; this is Node\.js 22\.12\.0\./;
  assert.equal(cliOnOld.status, 1, cliOnOld.stderr);
  assert.match(cliOnOld.stderr, needs);
  assert.equal(cliOnOld.stderr.trim().split('\n').length, 1, cliOnOld.stderr);
  const importOnOld = spawnSync(
    oldNode,
    ['-e', "import('toolkit-agent').then(() => console.log('imported'), (e) => console.log(e.message))"],
    { cwd: app, encoding: 'utf8' },
  );
  assert.match(importOnOld.stdout, needs);
  console.log('ok Node.js 22.12 is told which versions are needed (the CLI and an import)');

  console.log(
    process.argv.includes('--json')
      ? JSON.stringify(figures)
      : `fresh install: ${figures.node_modules_mib} MiB in node_modules, ${packages} packages`,
  );
} finally {
  if (!kept) consumer.remove();
}
