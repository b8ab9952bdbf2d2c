import YAML, { isCollection, isMap, isScalar, LineCounter } from 'yaml';

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

/** A repair of the front matter's lines: the line it changed, and the note that says so. */
interface Repair {
  index: number;
  code: string;
  message: string;
}

/**
 * Indents the lines that continue a value but start at column 0 (`description: Reviews pull
 * requests,` then `and suggests fixes.`, quoted or not), which YAML refuses: indented, they fold into
 * the value with a space, as a reader that keeps going reads them.
 */
function indentContinuations(lines: string[]): { lines: string[]; changed: Repair[] } {
  const changed: Repair[] = [];
  const out = [...lines];
  let key: string | undefined;
  for (const index of outsideBlockScalars(lines)) {
    const line = lines[index]!;
    const pair = KEY_VALUE.exec(line);
    if (pair) {
      key = pair[1] === '' ? pair[2] : undefined;
      continue;
    }
    if (
      key === undefined ||
      line.trim() === '' ||
      /^[\s#-]/.test(line) ||
      /^[A-Za-z_][\w-]*:(\s|$)/.test(line)
    ) {
      if (line.trim() !== '') key = undefined;
      continue;
    }
    changed.push({
      index,
      code: 'continuation-indent',
      message: `This line continues the value of \`${key}\` but starts at column 0; it was read as part of it. Indent it.`,
    });
    out[index] = `  ${line}`;
  }
  return { lines: out, changed };
}

/** Quotes values that contain `: ` (the most common way real files break YAML). */
function requoteColons(lines: string[]): { lines: string[]; changed: Repair[] } {
  const changed: Repair[] = [];
  const out = [...lines];
  for (const index of outsideBlockScalars(lines)) {
    const match = KEY_VALUE.exec(lines[index]!);
    if (!match || !match[3]!.includes(': ') || /^["'[{|>]/.test(match[3]!)) continue;
    changed.push({
      index,
      code: 'unquoted-colon',
      message: 'This value has an unquoted ": " inside; it was read as text. Quote the value.',
    });
    out[index] = `${match[1]}${match[2]}: ${JSON.stringify(match[3])}`;
  }
  return { lines: out, changed };
}

/** Indentation with tabs (YAML allows only spaces): each leading tab becomes two spaces. */
function detab(lines: string[]): { lines: string[]; changed: Repair[] } {
  const changed: Repair[] = [];
  const out = lines.map((line, index) => {
    const tabs = /^[ \t]*\t[ \t]*/.exec(line);
    if (!tabs || line.trim() === '') return line;
    changed.push({
      index,
      code: 'tab-indent',
      message: 'This line is indented with tabs, which YAML does not allow; they were read as spaces.',
    });
    return tabs[0].replace(/\t/g, '  ') + line.slice(tabs[0].length);
  });
  return { lines: out, changed };
}

/**
 * Quotes values that start like a flow list or map but are text: `[WIP] Drafts replies`, or a `[`
 * that never closes.
 */
function requoteFlowText(lines: string[]): { lines: string[]; changed: Repair[] } {
  const changed: Repair[] = [];
  const out = [...lines];
  for (const index of outsideBlockScalars(lines)) {
    const match = KEY_VALUE.exec(lines[index]!);
    if (!match || !/^[[{]/.test(match[3]!)) continue;
    const close = match[3]![0] === '[' ? ']' : '}';
    const textAfter = /^(\[[^\]]*\]|\{[^}]*\})\s*[^\s#,]/.test(match[3]!);
    const neverCloses = ![match[3]!, ...lines.slice(index + 1)].join('\n').includes(close);
    if (!textAfter && !neverCloses) continue;
    changed.push({
      index,
      code: 'flow-text',
      message: `The value of \`${match[2]}\` starts with "${match[3]![0]}" but is text; it was read as text. Quote the value.`,
    });
    out[index] = `${match[1]}${match[2]}: ${JSON.stringify(match[3])}`;
  }
  return { lines: out, changed };
}

/** Re-quotes `'It's done'` and `"a "b" c"`: quoted values with the same quote inside, unescaped. */
function requoteInnerQuotes(lines: string[]): { lines: string[]; changed: Repair[] } {
  const changed: Repair[] = [];
  const out = [...lines];
  for (const index of outsideBlockScalars(lines)) {
    const match = /^(\s*(?:- )?)([A-Za-z_][\w-]*):[ \t]+(["'])(.*)\3[ \t]*$/.exec(lines[index]!);
    if (!match) continue;
    const [, indent, key, quote, inner] = match as unknown as [string, string, string, string, string];
    const unescaped = quote === "'" ? /'/.test(inner.replace(/''/g, '')) : /(^|[^\\])(\\\\)*"/.test(inner);
    // A backslash YAML does not know in double quotes (`"C:\path"`): the text is read as written.
    const badEscape = quote === '"' && /\\[^0abtnvfre "/\\N_LPxuU\t]/.test(inner.replace(/\\\\/g, ''));
    if (!unescaped && !badEscape) continue;
    changed.push({
      index,
      code: 'inner-quote',
      message: unescaped
        ? `The value of \`${key}\` has its own quote character inside; it was read as the text between the outer quotes. Escape it.`
        : `The value of \`${key}\` has a backslash YAML does not know in double quotes; it was read as written. Use single quotes.`,
    });
    out[index] = `${indent}${key}: ${JSON.stringify(quote === "'" ? inner.replace(/''/g, "'") : inner)}`;
  }
  return { lines: out, changed };
}

/**
 * A value whose opening quote never closes is read to the end of the front matter (its lines folded
 * with spaces, as YAML folds a quoted value), the way a reader that keeps going would.
 */
function closeQuote(lines: string[]): { lines: string[]; changed: Repair[] } {
  for (const index of outsideBlockScalars(lines)) {
    const match = /^(\s*(?:- )?)([A-Za-z_][\w-]*):[ \t]+(["'])(.*)$/.exec(lines[index]!);
    if (!match) continue;
    const quote = match[3]!;
    const rest = [match[4]!, ...lines.slice(index + 1)].join('\n');
    if (closes(rest, quote)) continue;
    const text = [match[4]!, ...lines.slice(index + 1)]
      .map((line) => line.trim())
      .filter(Boolean)
      .join(' ')
      .replace(/\s+$/, '');
    const out = [...lines.slice(0, index), `${match[1]}${match[2]}: ${JSON.stringify(text)}`];
    const message =
      `The ${quote === '"' ? 'double' : 'single'} quote opening \`${match[2]}\` never closes; ` +
      'the value was read to the end of the frontmatter. Close the quote.';
    return { lines: out, changed: [{ index, code: 'unclosed-quote', message }] };
  }
  return { lines, changed: [] };
}

/**
 * A quoted value left open over several lines that start at column 0 (`description: "Reviews pull
 * requests.` then `Use when: …"`), which YAML refuses there: read as one value up to the line that
 * closes the quote, its lines folded with spaces, as the reference library (skills-ref) reads it.
 * The lines it took are left blank, so that every line keeps its number.
 */
function joinQuotedLines(lines: string[]): { lines: string[]; changed: Repair[] } {
  const changed: Repair[] = [];
  const out = [...lines];
  const outside = new Set(outsideBlockScalars(lines));
  for (let index = 0; index < lines.length; index++) {
    const match = outside.has(index)
      ? /^(\s*(?:- )?)([A-Za-z_][\w-]*):[ \t]+(["'])(.*)$/.exec(lines[index]!)
      : null;
    if (!match || closes(match[4]!, match[3]!)) continue;
    let end = index + 1;
    while (end < lines.length && !closes(lines[end]!, match[3]!)) end++;
    if (end >= lines.length) continue; // never closes: closeQuote reads it to the end
    const folded = [match[4]!, ...lines.slice(index + 1, end + 1)].map((line) => line.trim()).filter(Boolean);
    out[index] = `${match[1]}${match[2]}: ${match[3]}${folded.join(' ')}`;
    out.fill('', index + 1, end + 1);
    changed.push({
      index,
      code: 'quoted-lines',
      message: `The quoted value of \`${match[2]}\` runs over ${end - index + 1} lines that start at column 0; they were read as one value, folded with spaces. Indent the lines that continue it.`,
    });
    index = end;
  }
  return { lines: out, changed };
}

/** Whether a quoted value that starts with `text` closes: `"` not escaped, or `'` not doubled. */
function closes(text: string, quote: string): boolean {
  if (quote === '"') return /(^|[^\\])(\\\\)*"/.test(text);
  return /'(?!')/.test(text.replace(/''/g, ''));
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
