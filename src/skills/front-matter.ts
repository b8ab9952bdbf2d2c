import YAML, { isMap, isScalar, LineCounter } from 'yaml';

/** A problem found while reading a SKILL.md, with the line (1-based, in the file) it concerns. */
export interface FrontMatterNote {
  level: 'warning' | 'error';
  code: string;
  message: string;
  line: number;
}

/** A SKILL.md split into its front matter (as plain data) and its Markdown body. */
export interface FrontMatter {
  data: Record<string, unknown>;
  body: string;
  /** Line of the body's first line in the file. */
  bodyLine: number;
  /** Line of each top-level key (the last one when a key is given twice). */
  keyLines: Map<string, number>;
  notes: FrontMatterNote[];
}

/** Values YAML reserves at the start of a plain scalar; real files use them as text (`@me`, `*bold*`). */
const RESERVED_START = /^[@`*&!%]/;
const KEY_VALUE = /^(\s*(?:- )?)([A-Za-z_][\w-]*):[ \t]+(.*\S)[ \t]*$/;

/**
 * Reads the front matter of a SKILL.md the way real files are written, not only the way the format
 * says: a BOM, CRLF, blank lines before the opening `---`, a block never closed (read up to the first
 * Markdown heading), keys given twice (the last wins), unquoted values starting with a character YAML
 * reserves, unquoted `: ` inside values. Each repair is a warning naming the fix. YAML 1.2 with the
 * failsafe schema: every scalar stays the text written. The YAML library's own warnings become notes;
 * nothing is printed. Answers `undefined` data with an error note when there is nothing to read.
 */
export function readFrontMatter(
  text: string,
): FrontMatter | { error: FrontMatterNote; notes: FrontMatterNote[] } {
  const notes: FrontMatterNote[] = [];
  const warn = (code: string, line: number, message: string) =>
    notes.push({ level: 'warning', code, line, message });
  const fail = (code: string, line: number, message: string) => ({
    error: { level: 'error' as const, code, line, message },
    notes,
  });

  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  let open = 0;
  while (open < lines.length && lines[open]!.trim() === '') open++;
  if (lines[open]?.trimEnd() !== '---')
    return fail(
      'no-frontmatter',
      open + 1,
      'No frontmatter: a SKILL.md starts with a --- block holding at least name and description.',
    );
  if (open > 0)
    warn('blank-before-frontmatter', 1, `${open} blank line(s) before the opening ---; remove them.`);

  let close = lines.findIndex((line, i) => i > open && /^(---|\.\.\.)\s*$/.test(line));
  let bodyStart = close + 1;
  if (close < 0) {
    const heading = lines.findIndex((line, i) => i > open && /^#{1,6}\s/.test(line));
    close = heading < 0 ? lines.length : heading;
    bodyStart = close;
    warn(
      'unclosed-frontmatter',
      open + 1,
      heading < 0
        ? 'The frontmatter is never closed; the whole file was read as frontmatter. Add a --- line after it.'
        : `The frontmatter is never closed; it was read up to the heading on line ${heading + 1}. Add a --- line before it.`,
    );
  }

  const head = lines.slice(open + 1, close);
  const firstLine = open + 2; // file line of head[0]
  for (const i of outsideBlockScalars(head)) {
    const match = KEY_VALUE.exec(head[i]!);
    if (!match || !RESERVED_START.test(match[3]!) || isAnchorOnly(match[3]!, head[i + 1])) continue;
    head[i] = `${match[1]}${match[2]}: ${JSON.stringify(match[3])}`;
    warn(
      'reserved-character',
      firstLine + i,
      `The value of \`${match[2]}\` starts with "${match[3]![0]}", which YAML reserves; it was read as text. Quote the value.`,
    );
  }

  let parsed = parseYaml(head.join('\n'));
  if (parsed.errors.length > 0) {
    const repaired = requoteColons(head);
    const retry = repaired.changed.length ? parseYaml(repaired.lines.join('\n')) : undefined;
    if (!retry || retry.errors.length > 0) {
      const first = parsed.errors[0]!;
      return fail(
        'invalid-yaml',
        firstLine + first.line - 1,
        `The frontmatter is not valid YAML: ${first.message}`,
      );
    }
    for (const index of repaired.changed)
      warn(
        'unquoted-colon',
        firstLine + index,
        'This value has an unquoted ": " inside; it was read as text. Quote the value.',
      );
    parsed = retry;
  }
  for (const note of parsed.warnings) warn('yaml-warning', firstLine + note.line - 1, note.message);
  if (!parsed.keys) return fail('not-a-mapping', firstLine, 'The frontmatter is not a mapping of keys.');

  const keyLines = new Map<string, number>();
  for (const { key, line } of parsed.keys) {
    if (keyLines.has(key))
      warn(
        'duplicate-key',
        firstLine + line - 1,
        `\`${key}\` is given twice; the last value is used. Remove one.`,
      );
    keyLines.set(key, firstLine + line - 1);
  }
  return {
    data: parsed.data,
    body: lines.slice(bodyStart).join('\n'),
    bodyLine: bodyStart + 1,
    keyLines,
    notes,
  };
}

interface ParsedYaml {
  data: Record<string, unknown>;
  /** Top-level keys in order with their line in the parsed text; undefined when not a mapping. */
  keys: Array<{ key: string; line: number }> | undefined;
  errors: Array<{ line: number; message: string }>;
  warnings: Array<{ line: number; message: string }>;
}

function parseYaml(text: string): ParsedYaml {
  const counter = new LineCounter();
  const doc = YAML.parseDocument(text, { schema: 'failsafe', uniqueKeys: false, lineCounter: counter });
  const where = (offset: number | undefined) => (offset === undefined ? 1 : counter.linePos(offset).line);
  const describe = (list: readonly YAML.YAMLError[]) =>
    list.map((e) => ({ line: where(e.pos[0]), message: e.message.split('\n')[0]! }));
  const result: ParsedYaml = {
    data: {},
    keys: undefined,
    errors: describe(doc.errors),
    warnings: describe(doc.warnings),
  };
  if (result.errors.length) return result;
  let data: unknown;
  try {
    data = doc.toJS() ?? {};
  } catch (error) {
    result.errors.push({ line: 1, message: (error as Error).message });
    return result;
  }
  if (typeof data !== 'object' || Array.isArray(data)) return result;
  result.data = data as Record<string, unknown>;
  result.keys = isMap(doc.contents)
    ? doc.contents.items.map((pair) => ({
        key: String(isScalar(pair.key) ? pair.key.value : pair.key),
        line: where(isScalar(pair.key) ? pair.key.range?.[0] : undefined),
      }))
    : [];
  return result;
}

/** `metadata: &meta` followed by an indented block is a real anchor, not text. */
function isAnchorOnly(value: string, next: string | undefined): boolean {
  return /^[&!][\w!-]*$/.test(value) && /^\s+\S/.test(next ?? '');
}

/** Quotes values that contain `: ` (the most common way real files break YAML). */
function requoteColons(lines: string[]): { lines: string[]; changed: number[] } {
  const changed: number[] = [];
  const out = [...lines];
  for (const index of outsideBlockScalars(lines)) {
    const match = KEY_VALUE.exec(lines[index]!);
    if (!match || !match[3]!.includes(': ') || /^["'[{|>]/.test(match[3]!)) continue;
    changed.push(index);
    out[index] = `${match[1]}${match[2]}: ${JSON.stringify(match[3])}`;
  }
  return { lines: out, changed };
}

/** Indexes of the lines that are not inside a block scalar (`|`, `>-`, ...): only those hold keys. */
function outsideBlockScalars(lines: readonly string[]): number[] {
  const indexes: number[] = [];
  let blockIndent = -1;
  for (const [index, line] of lines.entries()) {
    const indent = line.length - line.trimStart().length;
    if (blockIndent >= 0 && (line.trim() === '' || indent > blockIndent)) continue;
    blockIndent = -1;
    indexes.push(index);
    if (/:[ \t]*[|>][-+0-9]*[ \t]*(#.*)?$/.test(line)) blockIndent = indent;
  }
  return indexes;
}
