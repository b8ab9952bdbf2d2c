/**
 * The repairs `readFrontMatter` tries, one on top of the other, on front matter that YAML refuses:
 * each changes lines the way a reader that keeps going reads them, and says so in a note.
 */

/** `key: value` on one line (the value not empty), after an optional indent or `- `. */
export const KEY_VALUE = /^(\s*(?:- )?)([A-Za-z_][\w-]*):[ \t]+(.*\S)[ \t]*$/;

/** A repair of the front matter's lines: the line it changed, and the note that says so. */
export interface Repair {
  index: number;
  code: string;
  message: string;
}

/**
 * Indents the lines that continue a value but start at column 0 (`description: Reviews pull
 * requests,` then `and suggests fixes.`, quoted or not), which YAML refuses: indented, they fold into
 * the value with a space, as a reader that keeps going reads them.
 */
export function indentContinuations(lines: string[]): { lines: string[]; changed: Repair[] } {
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
export function requoteColons(lines: string[]): { lines: string[]; changed: Repair[] } {
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
export function detab(lines: string[]): { lines: string[]; changed: Repair[] } {
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
export function requoteFlowText(lines: string[]): { lines: string[]; changed: Repair[] } {
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
export function requoteInnerQuotes(lines: string[]): { lines: string[]; changed: Repair[] } {
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
export function closeQuote(lines: string[]): { lines: string[]; changed: Repair[] } {
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
export function joinQuotedLines(lines: string[]): { lines: string[]; changed: Repair[] } {
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
export function outsideBlockScalars(lines: readonly string[]): number[] {
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
