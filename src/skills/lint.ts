import { stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { exists, isDirectory } from '../fs/probe.ts';
import { findSkillFiles, PROJECT_SKILL_ROOTS, readSkillFile, walkBudget } from './project.ts';
import { readSkillMd, type SkillDiagnostic } from './skill-md.ts';
import type { Skill } from './skill.ts';
import { tokenize } from './triggers.ts';

/** One finding of {@link lintSkills}: where it is, how bad, a stable code and what to do. */
export interface SkillLintDiagnostic {
  file: string;
  /** 1-based line in `file`. */
  line: number;
  severity: 'error' | 'warning';
  /** A stable name for the rule, e.g. `name-too-long`, `missing-file`, `duplicate-id`. */
  code: string;
  message: string;
}

/** Agent Skills rules the loader works around but a linter reports as errors. */
const SPEC_ERRORS = new Set([
  'name-too-long',
  'description-too-long',
  'invalid-name',
  'name-folder-mismatch',
  'description-from-body',
  'no-description',
  'no-id',
  'no-frontmatter',
  'missing-name',
  'invalid-yaml',
  'not-a-mapping',
]);
const MAX_COMPATIBILITY = 500;
const MAX_BODY_LINES = 500;

interface Linted {
  file: string;
  skill: Skill;
  keyLines: Map<string, number>;
}

/**
 * Lints SKILL.md files. Each path is a SKILL.md, a folder of skills (searched like a discovery root,
 * nested folders included), or a project (whose `.toolkit/skills`, `.agents/skills`, `.claude/skills`,
 * `.codex/skills` and `.github/skills` are read in that order). Reports, each with its file and line:
 * the Agent Skills rules (name of at most 64 characters, lower-case with single hyphens, equal to its
 * folder; description of at most 1,024; compatibility of at most 500; a body over 500 lines), every
 * repair the loader makes, and what the reference validator does not check: files the body links to
 * that do not exist, an id given by two files (the later one is shadowed), and trigger phrases that
 * collide with another skill's. Never throws for a bad file.
 *
 * @example
 * for (const d of await lintSkills(['.'])) console.log(`${d.file}:${d.line} ${d.severity} ${d.code} ${d.message}`);
 */
export async function lintSkills(paths: string | readonly string[]): Promise<SkillLintDiagnostic[]> {
  const found: SkillDiagnostic[] = [];
  const files = await skillFilesOf(typeof paths === 'string' ? [paths] : paths, found);
  const out: SkillLintDiagnostic[] = found.map(toLint);
  const byId = new Map<string, Linted>();
  const phrases = new Map<string, Linted>();
  for (const file of files) {
    const { text, diagnostics } = await readSkillFile(file, file);
    out.push(...diagnostics.map(toLint));
    if (text === undefined) continue;
    const reading = readSkillMd(text, file, basename(dirname(file)));
    out.push(...reading.diagnostics.map(toLint));
    const { skill, frontMatter } = reading;
    if (!frontMatter) continue;
    const at = (key: string) => frontMatter.keyLines.get(key) ?? 1;
    const report = (code: string, line: number, message: string, severity: 'error' | 'warning' = 'error') =>
      out.push({ file, line, severity, code, message });

    const compatibility = frontMatter.data.compatibility;
    if (typeof compatibility === 'string' && compatibility.length > MAX_COMPATIBILITY)
      report(
        'compatibility-too-long',
        at('compatibility'),
        `The compatibility is ${compatibility.length} characters; the Agent Skills format allows ${MAX_COMPATIBILITY}.`,
      );
    const bodyLines = frontMatter.body.replace(/\n+$/, '').split('\n');
    if (bodyLines.length > MAX_BODY_LINES)
      report(
        'body-too-long',
        frontMatter.bodyLine + MAX_BODY_LINES,
        `The body is ${bodyLines.length} lines; the Agent Skills format advises at most ${MAX_BODY_LINES}. ` +
          'Move details into references/ files the body links to.',
        'warning',
      );
    for (const link of await missingLinks(bodyLines, dirname(file)))
      report(
        'missing-file',
        frontMatter.bodyLine + link.index,
        `The body links to ${link.target}, which does not exist in the skill's folder.`,
      );
    if (!skill) continue;

    const linted: Linted = { file, skill, keyLines: frontMatter.keyLines };
    const first = byId.get(skill.id);
    if (first)
      report(
        'duplicate-id',
        at(frontMatter.keyLines.has('id') ? 'id' : 'name'),
        `The id "${skill.id}" is also the id of ${first.file}, which comes first and wins; this skill is shadowed. ` +
          'Rename one of them.',
        'warning',
      );
    else byId.set(skill.id, linted);
    const triggerKey = ['triggers', 'trigger_phrases', 'trigger'].find((key) =>
      frontMatter.keyLines.has(key),
    );
    for (const phrase of skill.trigger_phrases) {
      const key = tokenize(phrase).join(' ');
      const owner = phrases.get(key);
      if (!key || owner?.skill.id === skill.id) continue;
      if (!owner) phrases.set(key, linted);
      else
        report(
          'trigger-collision',
          at(triggerKey ?? 'triggers'),
          `The trigger phrase "${phrase}" is also a trigger of "${owner.skill.id}" (${owner.file}); ` +
            'a prompt with it selects both. Make one of them more specific.',
          'warning',
        );
    }
  }
  return dedupe(out).sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.code.localeCompare(b.code),
  );
}

/** The SKILL.md files of the paths, in the order their skills would be read. */
async function skillFilesOf(paths: readonly string[], found: SkillDiagnostic[]): Promise<string[]> {
  const budget = walkBudget();
  const files: string[] = [];
  for (const path of paths) {
    if (!(await isDirectory(path))) {
      if ((await stat(path).catch(() => undefined))?.isFile()) files.push(path);
      else
        found.push({ path, level: 'error', code: 'not-found', line: 1, message: 'No such file or folder.' });
      continue;
    }
    const roots = [];
    for (const root of PROJECT_SKILL_ROOTS)
      if (await isDirectory(join(path, root))) roots.push(join(path, root));
    for (const root of roots.length ? roots : [path])
      files.push(...(await findSkillFiles(root, budget, found)));
  }
  return files;
}

/** Relative links of the body (outside code) whose file does not exist, with their line in the body. */
async function missingLinks(
  lines: readonly string[],
  folder: string,
): Promise<Array<{ index: number; target: string }>> {
  const missing: Array<{ index: number; target: string }> = [];
  let fenced = false;
  for (const [index, line] of lines.entries()) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const text = line.replace(/`[^`]*`/g, '');
    for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('/')) continue;
      const file = safeDecode(target.replace(/[#?].*$/, ''));
      if (file && !(await exists(resolve(folder, file)))) missing.push({ index, target });
    }
  }
  return missing;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function toLint(diagnostic: SkillDiagnostic): SkillLintDiagnostic {
  const code = diagnostic.code ?? (diagnostic.level === 'error' ? 'unreadable' : 'warning');
  return {
    file: diagnostic.path,
    line: diagnostic.line ?? 1,
    severity: SPEC_ERRORS.has(code) ? 'error' : diagnostic.level,
    code,
    message: diagnostic.message,
  };
}

function dedupe(list: SkillLintDiagnostic[]): SkillLintDiagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.file}\0${d.line}\0${d.code}\0${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
