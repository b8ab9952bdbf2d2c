import matter from 'gray-matter';
import YAML from 'yaml';
import { skillIdFromName, type Skill } from './skill.ts';

/** Something a reader of SKILL.md files should know: a problem that was worked around, or why a file was skipped. */
export interface SkillDiagnostic {
  path: string;
  level: 'warning' | 'error';
  message: string;
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
const NAME_RULE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * YAML 1.2 with the failsafe schema: every scalar stays a string, so `on`, `yes`, `2026-02-27` and
 * `1.0` arrive as written (SKILLS.md: YAML 1.1 coercions are a known trap in real files).
 */
const engines = {
  yaml: (text: string): object => (YAML.parse(text, { schema: 'failsafe' }) as object | null) ?? {},
};

/**
 * Parses one SKILL.md (the Agent Skills format plus our keys `id`, `tools`, `mcps`, `tags`,
 * `triggers`). Messy real-world files are read where they can be: BOM, CRLF, unquoted colons,
 * lists written as strings, `trigger` as a scalar, `allowed-tools`; each workaround is a warning.
 * Answers `skill: undefined` with an error diagnostic only when nothing usable can be read.
 */
export function parseSkillMd(
  text: string,
  path: string,
  directoryName: string,
): { skill?: Skill; diagnostics: SkillDiagnostic[] } {
  const diagnostics: SkillDiagnostic[] = [];
  const warn = (message: string) => diagnostics.push({ path, level: 'warning', message });
  const fail = (message: string) => ({
    diagnostics: [...diagnostics, { path, level: 'error' as const, message }],
  });

  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (!/^---\s*\n/.test(normalized))
    return fail('No frontmatter: a SKILL.md starts with a --- block holding at least name and description.');
  let data: Record<string, unknown>;
  let body: string;
  try {
    ({ data, content: body } = parse(normalized));
  } catch (first) {
    const requoted = requoteColons(normalized);
    try {
      ({ data, content: body } = parse(requoted));
      warn('The frontmatter has an unquoted ": " inside a value; it was read as text. Quote such values.');
    } catch {
      return fail(`The frontmatter is not valid YAML: ${firstLine((first as Error).message)}`);
    }
  }

  const unknown = Object.keys(data).filter((key) => !KNOWN_KEYS.has(key));
  if (unknown.length) warn(`Unknown keys ignored: ${unknown.join(', ')}.`);

  const name = scalar(data.name);
  const description = scalar(data.description) ?? firstParagraph(body);
  const id =
    scalar(data.id) ?? (name ? normalizeId(name, warn) : undefined) ?? normalizeId(directoryName, warn);
  if (!id) return fail('No id, name or usable folder name to identify the skill.');
  if (!description) return fail('No description: add `description:` to the frontmatter.');
  if (!scalar(data.description))
    warn('No description in the frontmatter; the first paragraph of the body was used.');
  if (name && name.length > 64)
    warn(`The name is ${name.length} characters; the Agent Skills format allows 64.`);
  if (description.length > 1024)
    warn(`The description is ${description.length} characters; the Agent Skills format allows 1024.`);
  if (name && NAME_RULE.test(name) && name !== directoryName) {
    warn(
      `The name "${name}" differs from its folder "${directoryName}"; the Agent Skills format expects them equal.`,
    );
  }

  const metadata = (
    typeof data.metadata === 'object' && data.metadata !== null ? data.metadata : {}
  ) as Record<string, unknown>;
  const skill: Skill = {
    id,
    name: name ?? id,
    display_name: scalar(data.display_name) ?? scalar(metadata.display_name) ?? name ?? id,
    description,
    category: scalar(data.category),
    tags: listOf(data.tags, 'tags', warn),
    features: [],
    use_cases: listOf(data.use_cases, 'use_cases', warn),
    how_to_use: scalar(data.how_to_use),
    trigger_phrases: listOf(
      data.triggers ?? data.trigger_phrases ?? data.trigger,
      'triggers',
      warn,
      /[,;\n]/,
    ),
    prompt_template: body.trim() || undefined,
    tools: listOf(data.tools ?? data['allowed-tools'] ?? data.allowed_tools, 'tools', warn, /[,\s]+/),
    requirements: [],
    mcps: listOf(data.mcps, 'mcps', warn, /[,\s]+/),
    source: 'project',
    path,
  };
  return { skill, diagnostics };
}

function parse(text: string): { data: Record<string, unknown>; content: string } {
  const { data, content } = matter(text, { engines, language: 'yaml' });
  if (typeof data !== 'object' || Array.isArray(data))
    throw new Error('The frontmatter is not a mapping of keys.');
  return { data: data, content };
}

/** Quotes top-level values that contain `: ` (the most common way real files break YAML). */
function requoteColons(text: string): string {
  const end = text.indexOf('\n---', 3);
  if (end < 0) return text;
  const head = text
    .slice(0, end)
    .split('\n')
    .map((line) => {
      const match = /^([A-Za-z_][\w-]*):[ \t]+(.*\S)[ \t]*$/.exec(line);
      if (!match || !match[2]!.includes(': ') || /^["'[{|>]/.test(match[2]!)) return line;
      return `${match[1]}: ${JSON.stringify(match[2])}`;
    })
    .join('\n');
  return head + text.slice(end);
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
    const inner = /^\s*\[(.*)\]\s*$/s.exec(value);
    if (inner) warn(`\`${key}\` is a string that looks like a list; it was read as one.`);
    return (inner ? inner[1]!.split(',') : value.split(separator))
      .map((item) => item.trim().replace(/^["']|["']$/g, ''))
      .filter(Boolean);
  }
  warn(`\`${key}\` should be a list of strings; it was ignored.`);
  return [];
}

function normalizeId(name: string, warn: (message: string) => void): string | undefined {
  if (NAME_RULE.test(name)) return name;
  const id = skillIdFromName(name);
  if (id)
    warn(
      `"${name}" is not a valid skill name (lower-case letters, digits, single hyphens); the id "${id}" is used.`,
    );
  return id || undefined;
}

function firstParagraph(body: string): string | undefined {
  return body
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .find((block) => block && !block.startsWith('#'));
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
