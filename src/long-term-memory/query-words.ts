/** English function words that say nothing about what a message is about. */
const stopWords = new Set(
  (
    'a an and are as at be been but by can could did do does doing for from had has have he her hers him his how i ' +
    'if in into is it its me my of on or our ours she so than that the their them then there these they this those ' +
    'to too us was we were what when where which who whom why will with would you your yours'
  ).split(' '),
);

/**
 * The words of a free-text query worth searching for: letters and digits only (so nothing in it is
 * read as a search engine's syntax), without function words unless it has nothing else.
 */
export function queryWords(query: string): string[] {
  const words = query.match(/[\p{L}\p{N}]+/gu) ?? [];
  const meaningful = words.filter((word) => !stopWords.has(word.toLowerCase()));
  return meaningful.length > 0 ? meaningful : words;
}
