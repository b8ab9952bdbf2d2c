/**
 * The value of an unfinished JSON text, as far as it goes: open strings, arrays and objects are
 * closed, a trailing key without a value and a half-written literal are dropped. Returns `undefined`
 * while nothing can be read yet. Pure, for `partial_output` events while a structured answer is written.
 *
 * @example
 * parsePartialJson('{"priority": "hi') // { priority: 'hi' }
 */
export function parsePartialJson(text: string): unknown {
  const start = text.search(/[[{]/);
  if (start === -1) return undefined;
  const source = text.slice(start);
  try {
    return JSON.parse(source) as unknown;
  } catch {
    // unfinished: complete it below
  }
  const completed = complete(source);
  if (completed === undefined) return undefined;
  try {
    return JSON.parse(completed) as unknown;
  } catch {
    return undefined;
  }
}

/** Closes what is open at the end of `source`, after cutting back to the last complete value. */
function complete(source: string): string | undefined {
  const stack: Array<'{' | '['> = [];
  let inString = false;
  let escaped = false;
  /** Whether the string being read is an object key. */
  let stringIsKey = false;
  /** Whether the next string in the innermost object is a key (after `{` or `,`). */
  let expectKey = false;
  let stringStart = -1;
  /** The longest prefix that ends after a complete value or an opening bracket, and what is open there. */
  let safe = 0;
  let safeStack: Array<'{' | '['> = [];
  const mark = (end: number): void => {
    safe = end;
    safeStack = [...stack];
  };
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') {
        inString = false;
        if (!stringIsKey) mark(i + 1);
      }
      continue;
    }
    if (char === '"') {
      inString = true;
      stringIsKey = expectKey;
      expectKey = false;
      stringStart = i;
    } else if (char === '{' || char === '[') {
      stack.push(char);
      expectKey = char === '{';
      mark(i + 1);
    } else if (char === '}' || char === ']') {
      stack.pop();
      mark(i + 1);
    } else if (char === ',') {
      expectKey = stack.at(-1) === '{';
    } else if (/[-\d.tfn]/.test(char)) {
      const literal = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)(?=[\s,}\]])/.exec(source.slice(i));
      if (!literal) break; // a number or literal still being written
      i += literal[0].length - 1;
      mark(i + 1);
    }
  }
  let head = source.slice(0, safe);
  let open = safeStack;
  if (inString && !stringIsKey && stringStart >= safe) {
    // An unfinished string value: keep what is written of it.
    const body = source.slice(stringStart).replace(/\\(u[0-9a-fA-F]{0,3})?$/, '');
    head = source.slice(0, stringStart) + body + '"';
    open = [...stack];
  }
  // A dangling comma, or a key whose value has not started, is dropped.
  head = head
    .replace(/,\s*$/, '')
    .replace(/,\s*"(?:[^"\\]|\\.)*"\s*:\s*$/, '')
    .replace(/\{\s*"(?:[^"\\]|\\.)*"\s*:\s*$/, '{');
  if (head.trim() === '') return undefined;
  return (
    head +
    [...open]
      .reverse()
      .map((bracket) => (bracket === '{' ? '}' : ']'))
      .join('')
  );
}
