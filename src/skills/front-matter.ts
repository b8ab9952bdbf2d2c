import YAML, { isCollection, isMap, isScalar, LineCounter } from 'yaml';
import {
  closeQuote,
  detab,
  indentContinuations,
  joinQuotedLines,
  KEY_VALUE,
  outsideBlockScalars,
  requoteColons,
  requoteFlowText,
  requoteInnerQuotes,
  type Repair,
} from './front-matter-repairs.ts';

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

/**
 * Reads the front matter of a SKILL.md the way real files are written, not only the way the format
 * says: a BOM, CRLF, blank lines before the opening `---`, no front matter at all (the whole file is
 * the body, as Claude Code reads it), a block never closed (read up to the first Markdown heading),
 * keys given twice (the last wins), unquoted values starting with a character YAML reserves, unquoted
 * `: ` inside values, a value starting with a `[...]` or `{...}` that is text, a quoted value that
 * never closes (read to the end of the front matter). Each repair is a warning naming the fix. YAML
 * 1.2 with the failsafe schema: every scalar stays the text written. The YAML library's own warnings
 * (an unresolved tag, a key that is a collection) become notes; nothing is printed. Answers an error
 * note when there is nothing to read.
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
  if (lines[open]?.trimEnd() !== '---') {
    warn(
      'no-frontmatter',
      1,
      'No frontmatter: the whole file was read as the body. Start the file with a --- block holding name and description.',
    );
    return { data: {}, body: lines.join('\n'), bodyLine: 1, keyLines: new Map(), notes };
  }
  if (open > 0)
    warn('blank-before-frontmatter', 1, `${open} blank line(s) before the opening ---; remove them.`);

  const fence = lines.findIndex((line, i) => i > open && /^(---|\.\.\.)\s*$/.test(line));
  let close = fence;
  let bodyStart = close + 1;
  // A closing fence with text joined to it (`---**Base URL:**`, `---# Heading`, `------`) closes the
  // frontmatter when it comes first, as the reference library (skills-ref) reads it: before the first
  // fence on a line of its own, or with none, before any heading (one after a heading is a Markdown
  // rule in a body whose frontmatter was never closed).
  const joined = lines.findIndex(
    (line, i) => i > open && (fence < 0 ? /^(---\S|#{1,6}\s)/.test(line) : i < fence && /^---\S/.test(line)),
  );
  if (joined >= 0 && lines[joined]!.startsWith('---')) {
    close = joined;
    const rest = lines[close]!.slice(3).replace(/^-+\s*$/, '');
    warn(
      'joined-fence',
      close + 1,
      rest
        ? `The closing --- has text joined to it ("${rest.slice(0, 40)}"); it was read as the body's first line. Put the --- on a line of its own.`
        : 'The closing fence has more than three dashes; it was read as ---. Write it as ---.',
    );
    lines[close] = rest;
    bodyStart = rest ? close : close + 1;
  }
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
    // Repairs, each tried on top of the ones before, until the text parses: the notes of the one that did.
    let lines = head;
    let repairs: Repair[] = [];
    let retry: ParsedYaml | undefined;
    for (const repair of [
      joinQuotedLines,
      detab,
      indentContinuations,
      requoteColons,
      requoteFlowText,
      requoteInnerQuotes,
      closeQuote,
    ]) {
      const next = repair(lines);
      if (!next.changed.length) continue;
      lines = next.lines;
      repairs = [...repairs, ...next.changed];
      retry = parseYaml(lines.join('\n'));
      if (retry.errors.length === 0) break;
    }
    if (!retry || retry.errors.length > 0) {
      const first = parsed.errors[0]!;
      return fail(
        'invalid-yaml',
        firstLine + first.line - 1,
        `The frontmatter is not valid YAML: ${first.message}`,
      );
    }
    for (const { index, code, message } of repairs) warn(code, firstLine + index, message);
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
  // logLevel 'error': the library prints nothing; what it would warn about is collected below.
  const doc = YAML.parseDocument(text, {
    schema: 'failsafe',
    uniqueKeys: false,
    lineCounter: counter,
    logLevel: 'error',
  });
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
  YAML.visit(doc, {
    Pair(_, pair) {
      if (!isCollection(pair.key)) return;
      result.warnings.push({
        line: where(pair.key.range?.[0]),
        message:
          'A key is a collection (e.g. an unquoted {{ template }}); it was read as its text. Quote it.',
      });
    },
  });
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
