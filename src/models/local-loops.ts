/**
 * A small model's text without the loop it fell into: "service billing, status failed, service
 * billing, status failed, service bill" becomes "service billing, status failed". A phrase of 8 to
 * 200 characters said three times in a row, starting within the first 400 characters, is kept once,
 * and the cut-off copy after the repeats is dropped. Text without such a loop is returned as is.
 */
export function withoutLoops(text: string): string {
  const n = text.length;
  for (let start = 0; start < Math.min(n, 400); start++) {
    for (let length = 8; length <= 200 && start + 3 * length <= n; length++) {
      const phrase = text.slice(start, start + length);
      if (text.slice(start + length, start + 2 * length) !== phrase) continue;
      if (text.slice(start + 2 * length, start + 3 * length) !== phrase) continue;
      let end = start + 3 * length;
      while (text.startsWith(phrase, end)) end += length;
      const rest = text.slice(end);
      const kept = `${text.slice(0, start)}${phrase}${phrase.startsWith(rest) ? '' : rest}`;
      return kept.trim().replace(/[,;:\s]+$/, '');
    }
  }
  return text;
}

/** `withoutLoops` on every string inside a tool call's arguments or a structured answer. */
export function valuesWithoutLoops(value: unknown): unknown {
  if (typeof value === 'string') return withoutLoops(value);
  if (Array.isArray(value)) return value.map(valuesWithoutLoops);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, valuesWithoutLoops(item)]));
  return value;
}
