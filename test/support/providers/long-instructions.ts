/** Instructions long enough for a prompt cache (about 4,000 tokens as the stand-ins count). */
export const LONG_INSTRUCTIONS = Array.from(
  { length: 120 },
  (_, i) =>
    `Rule ${i + 1}: when a sum is asked, call add and report the result plainly, citing rule ${i + 1}.`,
).join('\n');
