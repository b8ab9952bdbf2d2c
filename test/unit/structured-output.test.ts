import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError } from '../../src/errors.ts';
import { LocalObjectStream } from '../../src/models/local-answer-stream.ts';
import { parseLocalReply, replySchema } from '../../src/models/local-prompt.ts';
import { checkAnswer, formatPath } from '../../src/output/check.ts';
import { finalAnswerTool, takeFinalAnswer } from '../../src/output/final-answer-tool.ts';
import { parsePartialJson } from '../../src/output/partial-json.ts';
import { toOutputJsonSchema } from '../../src/output/schema.ts';
import { StructuredAnswer } from '../../src/output/structured-answer.ts';

const Rows = z.object({
  rows: z.array(z.object({ name: z.string(), amount: z.number() })),
  note: z.string().optional(),
});
const ROWS_SCHEMA = z.toJSONSchema(Rows) as Record<string, unknown>;

describe('parsePartialJson', () => {
  it.each([
    ['', undefined],
    ['Sure: ', undefined],
    ['{', {}],
    ['{"pri', {}],
    ['{"priority": ', {}],
    ['{"priority": "hi', { priority: 'hi' }],
    ['{"a": 1, "b', { a: 1 }],
    ['{"a": [1, 2', { a: [1] }],
    ['{"a": "x", "tags": ["p', { a: 'x', tags: ['p'] }],
    ['{"a": "x\\', { a: 'x' }],
    ['{"a": "[{", "b": tr', { a: '[{' }],
    ['{"a": [{"b": "c"}, {"d"', { a: [{ b: 'c' }, {}] }],
    ['{"done": true}', { done: true }],
  ])('reads %j as %j', (text, expected) => {
    expect(parsePartialJson(text)).toEqual(expected);
  });
});

describe('checkAnswer', () => {
  it('accepts a matching answer (a code fence is tolerated) and returns the parsed value', () => {
    const text = '```json\n{"rows": [{"name": "a", "amount": 1}]}\n```';
    expect(checkAnswer(text, ROWS_SCHEMA)).toEqual({ ok: true, value: { rows: [{ name: 'a', amount: 1 }] } });
  });

  it('names each failing path', () => {
    const check = checkAnswer(
      '{"rows": [{"name": "a", "amount": 1}, {"name": 2, "amount": "3"}]}',
      ROWS_SCHEMA,
    );
    expect(check.ok).toBe(false);
    expect(check.ok ? [] : check.issues.map((issue) => issue.path)).toEqual([
      'rows[1].name',
      'rows[1].amount',
    ]);
  });

  it('says when the answer is not JSON at all', () => {
    expect(checkAnswer('The rows are a and b.', ROWS_SCHEMA)).toMatchObject({
      ok: false,
      issues: [{ path: '', message: expect.stringMatching(/^not valid JSON/) as unknown }],
    });
    expect(checkAnswer('', ROWS_SCHEMA)).toMatchObject({
      issues: [{ message: 'not valid JSON: the answer is empty' }],
    });
  });

  it('formats paths', () => {
    expect(formatPath(['rows', 2, 'amount'])).toBe('rows[2].amount');
    expect(formatPath([])).toBe('');
  });
});

describe('StructuredAnswer', () => {
  it('repairs at most `repairs` times, then fails with the last answer and every issue', () => {
    const answer = new StructuredAnswer({ schema: ROWS_SCHEMA, repairs: 1 });
    const bad = checkAnswer('{"rows": 1}', ROWS_SCHEMA);
    const first = answer.accept('{"rows": 1}', bad);
    expect(first).toMatchObject({ kind: 'repair' });
    expect(first.kind === 'repair' && first.message).toMatch(
      /repair 1 of 1\):\n- rows: Invalid input: expected array/,
    );
    const second = answer.accept('{"rows": 1}', bad);
    expect(second).toMatchObject({
      kind: 'failed',
      failure: { code: 'INVALID_OUTPUT', raw: '{"rows": 1}', attempts: 2, issues: [{ path: 'rows' }] },
    });
  });
});

describe('toOutputJsonSchema', () => {
  it('converts zod with z.toJSONSchema and copies a JSON Schema object', () => {
    expect(toOutputJsonSchema(Rows, 'Agent')).toEqual(ROWS_SCHEMA);
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const copy = toOutputJsonSchema(schema, 'Agent');
    expect(copy).toEqual(schema);
    expect(copy).not.toBe(schema);
  });

  it('refuses what is not a schema, naming where', () => {
    expect(() => toOutputJsonSchema('rows', 'Agent "x"')).toThrow(ConfigurationError);
    expect(() => toOutputJsonSchema([], 'Agent "x"')).toThrow(/Agent "x": `output` must be a zod schema/);
    expect(() => toOutputJsonSchema(z.date(), 'The run')).toThrow(
      /The run: `output` cannot be written as JSON Schema/,
    );
  });
});

describe('the final-answer tool', () => {
  it('has the schema as parameters, and its call becomes the answer text', () => {
    const tool = finalAnswerTool(ROWS_SCHEMA);
    expect(tool.function.name).toBe('final_answer');
    expect(tool.function.parameters).not.toHaveProperty('$schema');
    const answer = takeFinalAnswer(
      { text: '', toolCalls: [{ id: 'c', name: 'final_answer', args: { rows: [] } }] },
      ROWS_SCHEMA,
    );
    expect(answer).toEqual({ text: '{"rows":[]}', toolCalls: [] });
  });

  it('wraps a schema that is not an object', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    expect(finalAnswerTool(schema).function.parameters).toMatchObject({ properties: { value: schema } });
    const answer = takeFinalAnswer(
      { text: '', toolCalls: [{ id: 'c', name: 'final_answer', args: { value: ['a'] } }] },
      schema,
    );
    expect(answer.text).toBe('["a"]');
  });
});

describe('the local model’s structured answers', () => {
  it('holds the answer to the schema in the grammar and drops the nulls of optional properties', () => {
    expect(replySchema([], 'either', ROWS_SCHEMA)).toMatchObject({
      properties: { answer: { type: 'object', properties: { rows: { type: 'array' } } } },
    });
    const reply = parseLocalReply(
      '{"answer": {"rows": [{"name": "a", "amount": 1}], "note": null}}',
      'l1',
      ROWS_SCHEMA,
    );
    expect(reply).toEqual({ text: '{"rows":[{"name":"a","amount":1}]}', toolCalls: [] });
  });

  it('streams only the answer’s JSON, holding back the wrapper’s closing brace', () => {
    const seen: string[] = [];
    const stream = new LocalObjectStream((text) => seen.push(text));
    for (const chunk of ['{"ans', 'wer": ', '{"rows": [', ']}', '}']) stream.push(chunk);
    expect(seen.join('')).toBe('{"rows": []}');
    expect(parsePartialJson(seen.join(''))).toEqual({ rows: [] });
    const tool: string[] = [];
    const calls = new LocalObjectStream((text) => tool.push(text));
    calls.push('{"tool": "add", "arguments": {}}');
    expect(tool).toEqual([]);
  });
});
