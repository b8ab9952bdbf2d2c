import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { NO_GPU_FOLDER, noGpuPackage, packageJsonFor, updatePackageJson } from './init-package.ts';
import { PROJECT_TEMPLATES, projectTemplate, projectTemplateFiles } from './init-project.ts';
import { CONFIG_TEMPLATE, SKILL_TEMPLATE } from './init-templates.ts';
import { CliError, note, paint, printJson } from './output.ts';

export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      'Write toolkit-agent.config.ts with an example agent, .agents/skills/example/SKILL.md, and a package.json when there is none; with --template, a runnable project (backend, chat or triggers)',
    )
    .option('-d, --dir <dir>', 'the project folder', '.')
    .option(
      '-t, --template <name>',
      `a runnable project instead: ${Object.entries(PROJECT_TEMPLATES)
        .map(([name, t]) => `${name} (${t.summary})`)
        .join('; ')}`,
    )
    .option('-f, --force', 'overwrite existing files')
    .option('--json', 'print the written files as JSON')
    .action(async (opts: { dir: string; template?: string; force?: boolean; json?: boolean }) => {
      const dir = resolve(opts.dir);
      const template = opts.template === undefined ? undefined : projectTemplate(opts.template);
      const files: Array<{ path: string; text: string; updated?: boolean }> = template
        ? await projectTemplateFiles(template, dir)
        : [
            { path: join(dir, 'toolkit-agent.config.ts'), text: CONFIG_TEMPLATE },
            { path: join(dir, '.agents', 'skills', 'example', 'SKILL.md'), text: SKILL_TEMPLATE },
          ];
      const existing = files.filter((file) => existsSync(file.path));
      // The config imports toolkit-agent from the project: a folder without a package.json gets one,
      // one that has it gets what the config needs (module type, scripts, dependencies), said below.
      const manifestPath = join(dir, 'package.json');
      const extras = template ? { scripts: PROJECT_TEMPLATES[template].scripts } : undefined;
      let changes: string[] = [];
      if (existsSync(manifestPath)) {
        const updated = updatePackageJson(await readFile(manifestPath, 'utf8'), {
          ...(extras ? { template: extras } : {}),
        });
        changes = updated.changes;
        if (changes.length) files.push({ path: manifestPath, text: updated.text, updated: true });
      } else {
        files.push({ path: manifestPath, text: packageJsonFor(dir, extras) });
      }
      // The overrides that leave node-llama-cpp's GPU builds out point at an empty package: written once.
      const manifestText = files.find((file) => file.path === manifestPath)?.text ?? '';
      const noGpu = noGpuPackage(dir);
      if (manifestText.includes(`file:./${NO_GPU_FOLDER}`) && !existsSync(noGpu.path)) files.push(noGpu);
      const install = files.some((file) => file.path === manifestPath) ? ['npm install'] : [];
      if (existing.length && !opts.force) {
        throw new CliError(
          `${existing.map((f) => f.path).join(' and ')} already exist; pass --force to overwrite.`,
        );
      }
      for (const file of files) {
        await mkdir(dirname(file.path), { recursive: true });
        await writeFile(file.path, file.text);
      }
      if (opts.json) return printJson({ files: files.map((f) => f.path), changes, next: install });
      for (const file of files) {
        process.stdout.write(`${paint('green', '✓')} ${file.updated ? 'updated' : 'wrote'} ${file.path}\n`);
        if (file.updated) for (const change of changes) process.stdout.write(`    ${change}\n`);
      }
      const pad = (command: string) => command.padEnd(32);
      if (template) {
        return note(
          [
            '',
            'Next:',
            ...install.map((command) => `  ${command}`),
            `  ${pad('npx toolkit-agent model pull')}# the offline model (or set ANTHROPIC_API_KEY / OPENAI_API_KEY)`,
            ...PROJECT_TEMPLATES[template].try.map((command) => `  ${command}`),
          ].join('\n'),
        );
      }
      note(
        [
          '',
          'Next:',
          ...install.map((command) => `  ${pad(command)}# the packages package.json names`),
          `  ${pad('npx toolkit-agent model pull')}# the offline model (or set ANTHROPIC_API_KEY / OPENAI_API_KEY)`,
          `  ${pad('npx toolkit-agent run "Hello!"')}# a streamed run`,
          `  ${pad('npx toolkit-agent skills lint')}# check the example skill`,
        ].join('\n'),
      );
    });
}
