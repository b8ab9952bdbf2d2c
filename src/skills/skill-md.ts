import { mapAllowedTools, splitAllowedTools } from './allowed-tools.ts';
import { readFrontMatter, type FrontMatter } from './front-matter.ts';
import { skillIdFromName, type Skill } from './skill.ts';

/** Something a reader of SKILL.md files should know: a problem that was worked around, or why a file was skipped. */
export interface SkillDiagnostic {
  path: string;
  level: 'warning' | 'error';
  message: string;
  /** Line in the file (1-based), when the problem has one. */
  line?: number;
  /** A stable name for the kind of problem, e.g. `duplicate-key` or `unknown-tool`. */
  code?: string;
}

const KNOWN_KEYS = new Set([
  'id',
  'name',
  'display_name',
  'description',
  'tools',
  'allowed-tools',
  'allowed_tools',
  'mcps',
  'tags',
  'triggers',
  'trigger',
  'trigger_phrases',
  'license',
  'compatibility',
  'metadata',
  'category',
  'use_cases',
  'how_to_use',
  'version',
  'author',
  'model',
  'disable-model-invocation',
  'user-invocable',
  'argument-hint',
]);
/** The Agent Skills name rule: lower-case letters and digits, single hyphens, none at the ends. */
export const SKILL_NAME_RULE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** A SKILL.md read: the skill (when usable), every diagnostic, and the parts `lintSkills` checks further. */
export interface SkillMdReading {
  skill?: Skill;
  diagnostics: SkillDiagnostic[];
  frontMatter?: FrontMatter;
}

/**
 * Parses one SKILL.md (the Agent Skills format plus our keys `id`, `tools`, `mcps`, `tags`,
 * `triggers`). Messy real-world files are read where they can be (see `readFrontMatter`), lists
 * written as strings, `trigger` as a scalar, `allowed-tools` in Agent Skills names; each workaround
 * is a warning with its line. Answers `skill: undefined` with an error diagnostic only when nothing
 * usable can be read. Nothing in the file is executed.
 */
export function parseSkillMd(
  text: string,
  path: string,
  directoryName: string,
): { skill?: Skill; diagnostics: SkillDiagnostic[] } {
  const { skill, diagnostics } = readSkillMd(text, path, directoryName);
  return skill ? { skill, diagnostics } : { diagnostics };
}

/** {@link parseSkillMd} with the front matter kept, for the linter. */
export function readSkillMd(text: string, path: string, directoryName: string): SkillMdReading {
  const diagnostics: SkillDiagnostic[] = [];
  const read = readFrontMatter(text);
  for (const note of read.notes) diagnostics.push({ path, ...note });
  if ('error' in read) return { diagnostics: [...diagnostics, { path, ...read.error }] };
  const { data, body, keyLines } = read;
  const lineOf = (key: string) => keyLines.get(key) ?? 1;
  const warn = (code: string, key: string, message: string) =>
    diagnostics.push({ path, level: 'warning', code, line: lineOf(key), message });
  const fail = (code: string, key: string, message: string): SkillMdReading => ({
    diagnostics: [...diagnostics, { path, level: 'error', code, line: lineOf(key), message }],
    frontMatter: read,
  });

  for (const key of Object.keys(data).filter((key) => !KNOWN_KEYS.has(key)))
    warn('unknown-key', key, `Unknown key \`${key}\` ignored.`);

  const name = scalar(data.name);
  const description = scalar(data.description) ?? firstParagraph(body);
  const idFrom = (text: string, key: string) => normalizeId(text, (m) => warn('invalid-name', key, m));
  const id = scalar(data.id) ?? (name ? idFrom(name, 'name') : undefined) ?? idFrom(directoryName, 'name');
  if (!id) return fail('no-id', 'name', 'No id, name or usable folder name to identify the skill.');
  if (!description)
    return fail('no-description', 'description', 'No description: add `description:` to the frontmatter.');
  if (!name && !scalar(data.id))
    warn(
      'missing-name',
      'name',
      `No name in the frontmatter; the folder's name "${id}" was used. Add \`name: ${id}\`.`,
    );
  if (!scalar(data.description))
    warn(
      'description-from-body',
      'description',
      'No description in the frontmatter; the first paragraph of the body was used.',
    );
  if (name && name.length > 64)
    warn(
      'name-too-long',
      'name',
      `The name is ${name.length} characters; the Agent Skills format allows 64.`,
    );
  if (description.length > 1024)
    warn(
      'description-too-long',
      'description',
      `The description is ${description.length} characters; the Agent Skills format allows 1024.`,
    );
  if (name && SKILL_NAME_RULE.test(name) && name !== directoryName) {
    warn(
      'name-folder-mismatch',
      'name',
      `The name "${name}" differs from its folder "${directoryName}"; the Agent Skills format expects them equal.`,
    );
  }

  const metadata = (
    typeof data.metadata === 'object' && data.metadata !== null ? data.metadata : {}
  ) as Record<string, unknown>;
  const list = (key: string, separator?: RegExp) =>
    listOf(data[key], key, (m) => warn('list-shape', key, m), separator);
  const triggerKey = ['triggers', 'trigger_phrases', 'trigger'].find((key) => data[key] !== undefined);
  const skill: Skill = {
    id,
    name: name ?? id,
    display_name: scalar(data.display_name) ?? scalar(metadata.display_name) ?? name ?? id,
    description,
    category: scalar(data.category),
    tags: list('tags'),
    features: [],
    use_cases: list('use_cases'),
    how_to_use: scalar(data.how_to_use),
    trigger_phrases: triggerKey ? list(triggerKey, /[,;\n]/) : [],
    prompt_template: body.trim() || undefined,
    tools: readTools(data, warn),
    requirements: [],
    mcps: list('mcps', /[,\s]+/),
    source: 'project',
    path,
  };
  return { skill, diagnostics, frontMatter: read };
}

/** `tools` (our names, as written) and `allowed-tools` (Agent Skills names, mapped onto built-ins). */
function readTools(
  data: Record<string, unknown>,
  warn: (code: string, key: string, message: string) => void,
): string[] {
  const tools = listOf(data.tools, 'tools', (m) => warn('list-shape', 'tools', m), /[,\s]+/);
  for (const key of ['allowed-tools', 'allowed_tools']) {
    const value = data[key];
    if (value === undefined) continue;
    const entries =
      typeof value === 'string'
        ? splitAllowedTools(value.replace(/^\s*\[(.*)\]\s*$/s, '$1'))
        : listOf(value, key, (m) => warn('list-shape', key, m));
    const mapped = mapAllowedTools(entries);
    for (const tool of mapped.tools) if (!tools.includes(tool)) tools.push(tool);
    if (mapped.unknown.length)
      warn(
        'unknown-tool',
        key,
        `\`${key}\` names tools without a built-in counterpart, ignored: ${mapped.unknown.join(', ')}. ` +
          'Known: Read, Write, Edit, Glob, Grep, Bash, WebFetch, WebSearch, or our built-in tool names.',
      );
  }
  return tools;
}

function scalar(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' || trimmed === '~' || trimmed === 'null' ? undefined : trimmed;
}

/** A list from a YAML list, a `"[a, b]"` string, or a separated string; other shapes are warned about. */
function listOf(
  value: unknown,
  key: string,
  warn: (message: string) => void,
  separator: RegExp = /,/,
): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value))
    return value.flatMap((item) => (typeof item === 'string' && item.trim() ? [item.trim()] : []));
  if (typeof value === 'string') {
    const inner = /^\s*\[(.*?)\]?\s*$/s.exec(value); // `[a, b]`, or `[a, b` never closed
    if (inner) warn(`\`${key}\` is a string that looks like a list; it was read as one.`);
    return (inner ? inner[1]!.split(',') : value.split(separator))
      .map((item) => item.trim().replace(/^["']|["']$/g, ''))
      .filter(Boolean);
  }
  warn(`\`${key}\` should be a list of strings; it was ignored.`);
  return [];
}

function normalizeId(name: string, warn: (message: string) => void): string | undefined {
  if (SKILL_NAME_RULE.test(name)) return name;
  const id = skillIdFromName(name);
  if (id)
    warn(
      `"${name}" is not a valid skill name (lower-case letters, digits, single hyphens); the id "${id}" is used.`,
    );
  return id || undefined;
}

/** The body's first paragraph: not a heading, not an HTML comment. */
function firstParagraph(body: string): string | undefined {
  return body
    .replace(/<!--[\s\S]*?-->/g, '')
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .find((block) => block && !block.startsWith('#'));
}
