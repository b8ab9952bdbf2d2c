import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CONFIG_TEMPLATE, SKILL_TEMPLATE } from './init-templates.ts';
import { CliError, note, paint, printJson } from './output.ts';

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('Write toolkit-agent.config.ts with an example agent, and .agents/skills/example/SKILL.md')
    .option('-d, --dir <dir>', 'the project folder', '.')
    .option('-f, --force', 'overwrite existing files')
    .option('--json', 'print the written files as JSON')
    .action(async (opts: { dir: string; force?: boolean; json?: boolean }) => {
      const dir = resolve(opts.dir);
      const files = [
        { path: join(dir, 'toolkit-agent.config.ts'), text: CONFIG_TEMPLATE },
        { path: join(dir, '.agents', 'skills', 'example', 'SKILL.md'), text: SKILL_TEMPLATE },
      ];
      const existing = files.filter((file) => existsSync(file.path));
      if (existing.length && !opts.force) {
        throw new CliError(
          `${existing.map((f) => f.path).join(' and ')} already exist; pass --force to overwrite.`,
        );
      }
      for (const file of files) {
        await mkdir(dirname(file.path), { recursive: true });
        await writeFile(file.path, file.text);
      }
      if (opts.json) return printJson({ files: files.map((f) => f.path) });
      for (const file of files) process.stdout.write(`${paint('green', '✓')} wrote ${file.path}\n`);
      note(
        [
          '',
          'Next:',
          '  toolkit-agent model pull        # the offline model (or set ANTHROPIC_API_KEY / OPENAI_API_KEY)',
          '  toolkit-agent run "Hello!"      # a streamed run',
          '  toolkit-agent skills lint       # check the example skill',
        ].join('\n'),
      );
    });
}
