import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Skill } from '../skills/skill.ts';
import { skillTemplate } from './init-templates.ts';
import { CliError, paint, printJson, printTable, UsageError } from './output.ts';

interface SourceOptions {
  catalog?: string;
  project: string;
}

/** The skills an agent here can use: the catalog's and the project's SKILL.md files (which win an id clash). */
async function availableSkills(opts: SourceOptions): Promise<Skill[]> {
  const [{ FileSkillRegistry }, { discoverProjectSkills }] = await Promise.all([
    import('../skills/registry.ts'),
    import('../skills/project.ts'),
  ]);
  const byId = new Map((await new FileSkillRegistry(opts.catalog).list()).map((skill) => [skill.id, skill]));
  for (const skill of (await discoverProjectSkills(resolve(opts.project))).skills) byId.set(skill.id, skill);
  return [...byId.values()];
}

function withSources(command: Command): Command {
  return command
    .option('--catalog <file>', 'a skills.json catalog (default: the packaged one)')
    .option(
      '--project <dir>',
      'the project whose .agents/skills (and .toolkit, .claude, .codex) to read',
      '.',
    );
}

function shortRows(skills: Skill[]): string[][] {
  return skills.map((skill) => [
    skill.id,
    skill.source ?? 'catalog',
    skill.description.length > 70 ? `${skill.description.slice(0, 67)}...` : skill.description,
  ]);
}

export function registerSkills(program: Command): void {
  const skills = program.command('skills').description('List, search, show, check and create skills');

  withSources(skills.command('list').description('List the available skills (catalog and project)'))
    .option('--json', 'print a JSON array')
    .action(async (opts: SourceOptions & { json?: boolean }) => {
      const all = await availableSkills(opts);
      if (opts.json)
        return printJson(
          all.map(({ id, name, description, source, path }) => ({
            id,
            name,
            description,
            source: source ?? 'catalog',
            ...(path ? { path } : {}),
          })),
        );
      printTable(['ID', 'SOURCE', 'DESCRIPTION'], shortRows(all));
    });

  withSources(skills.command('search <query>').description('Fuzzy search of the available skills'))
    .option('-n, --limit <n>', 'most results', '10')
    .option('--json', 'print a JSON array')
    .action(async (query: string, opts: SourceOptions & { limit: string; json?: boolean }) => {
      const { SkillSearchIndex } = await import('../skills/search.ts');
      const found = new SkillSearchIndex(await availableSkills(opts)).search(query, Number(opts.limit));
      if (opts.json)
        return printJson(
          found.map(({ id, name, description, source }) => ({
            id,
            name,
            description,
            source: source ?? 'catalog',
          })),
        );
      if (!found.length) throw new CliError(`No skill matches ${JSON.stringify(query)}.`);
      printTable(['ID', 'SOURCE', 'DESCRIPTION'], shortRows(found));
    });

  withSources(
    skills.command('show <id>').description('Show one skill: its metadata and the prompt it adds to a run'),
  )
    .option('--json', 'print the skill as JSON')
    .action(async (id: string, opts: SourceOptions & { json?: boolean }) => {
      const skill = (await availableSkills(opts)).find((s) => s.id === id);
      if (!skill)
        throw new CliError(`No skill with id ${id}; \`toolkit-agent skills search <words>\` finds one.`);
      if (opts.json) return printJson(skill);
      const field = (name: string, value: string | string[] | undefined) => {
        const text = Array.isArray(value) ? value.join(', ') : value;
        if (text) process.stdout.write(`${paint('bold', `${name}:`.padEnd(10))} ${text}\n`);
      };
      field('id', skill.id);
      field('name', skill.display_name ?? skill.name);
      field('source', skill.path ?? skill.source ?? 'catalog');
      field('tools', skill.tools);
      field('triggers', skill.trigger_phrases);
      field('tags', skill.tags);
      const { skillPrompt } = await import('../skills/skill.ts');
      process.stdout.write(`\n${skillPrompt(skill)}\n`);
    });

  skills
    .command('lint [paths...]')
    .description('Check SKILL.md files (default: this folder); exits 1 when any has an error')
    .option('--json', 'print the diagnostics as a JSON array')
    .action(async (paths: string[], opts: { json?: boolean }) => {
      const { lintSkills } = await import('../skills/lint.ts');
      const diagnostics = await lintSkills(paths.length ? paths : ['.']);
      if (opts.json) printJson(diagnostics);
      else
        for (const d of diagnostics) {
          const severity = paint(d.severity === 'error' ? 'red' : 'yellow', d.severity);
          process.stdout.write(`${d.file}:${d.line}: ${severity} ${d.code}: ${d.message}\n`);
        }
      const errors = diagnostics.filter((d) => d.severity === 'error').length;
      if (errors) throw new CliError(`${errors} error(s) in the skills checked.`);
      if (!opts.json) {
        const warnings = diagnostics.length;
        const where = paths.length ? paths.join(', ') : 'this folder';
        process.stdout.write(
          `${paint('green', '✓')} no errors in the skills under ${where}${warnings ? ` (${warnings} warning(s) above)` : ''}\n`,
        );
      }
    });

  skills
    .command('new <name>')
    .description('Create .agents/skills/<id>/SKILL.md from a template')
    .option('--project <dir>', 'the project folder', '.')
    .action(async (name: string, opts: { project: string }) => {
      const { skillIdFromName } = await import('../skills/skill.ts');
      const id = skillIdFromName(name);
      if (!id)
        throw new UsageError(`${JSON.stringify(name)} has no letters or digits to make a skill id from.`);
      const path = join(resolve(opts.project), '.agents', 'skills', id, 'SKILL.md');
      if (existsSync(path)) throw new CliError(`${path} already exists.`);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, skillTemplate(id));
      process.stdout.write(`${paint('green', '✓')} wrote ${path}\n`);
    });
}
