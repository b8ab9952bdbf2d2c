/**
 * Cuts `text` to at most `max` characters without splitting a surrogate pair, and says so at the
 * end, so the model knows it saw only part of the output.
 */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return {
    text: `${text.slice(0, end)}\n[output truncated: showed ${end} of ${text.length} characters]`,
    truncated: true,
  };
}
