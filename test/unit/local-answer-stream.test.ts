import { describe, expect, it } from 'vitest';
import { LocalAnswerStream } from '../../src/models/local-answer-stream.ts';

function streamed(chunks: string[]): string[] {
  const out: string[] = [];
  const stream = new LocalAnswerStream((text) => out.push(text));
  for (const chunk of chunks) stream.push(chunk);
  return out;
}

describe('LocalAnswerStream', () => {
  it('hands on the answer text as the JSON reply is written, escapes split across chunks included', () => {
    const reply = JSON.stringify({ answer: 'Line one\nsays "hi" — \u00e9 ok' });
    const chunks = reply.match(/.{1,3}/gs)!;
    const out = streamed(chunks);
    expect(out.length).toBeGreaterThan(3);
    expect(out.join('')).toBe('Line one\nsays "hi" — \u00e9 ok');
    const ascii = JSON.stringify({ answer: 'caf\u00e9' }).replace('\u00e9', '\\u00e9');
    expect(streamed(ascii.split('')).join('')).toBe('caf\u00e9');
  });

  it('hands on nothing for a tool call, or after the answer ends', () => {
    expect(streamed(['{"tool": "add", "arguments": {"a": 1}}'])).toEqual([]);
    expect(streamed(['  {', ' "ans', 'wer": "a', 'b"}', ' "more"'])).toEqual(['a', 'b']);
  });
});
