import { describe, expect, it } from 'vitest';
import type { Message, ToolSchema } from '../../src/common/messages.ts';
import {
  parseLocalReply,
  renderLocalPrompt,
  replyKind,
  replySchema,
  toGrammarSchema,
} from '../../src/models/local-prompt.ts';
import { withoutLoops } from '../../src/models/local-loops.ts';

const add: ToolSchema = {
  type: 'function',
  function: {
    name: 'add',
    description: 'Adds two numbers.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number', description: 'first' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
  },
};

describe('the local model protocol', () => {
  it('renders the conversation as a transcript with the tools listed', () => {
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 2 + 3?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'add', args: { a: 2, b: 3 } }] },
      { role: 'tool', toolCallId: 'c1', toolName: 'add', content: '5' },
    ];
    const prompt = renderLocalPrompt(messages, [add]);
    expect(prompt).toContain(
      'Be brief.\n\nTools:\n- add: Adds two numbers. Arguments: {"a": number (first), "b": number}',
    );
    expect(
      prompt.endsWith(
        'User: What is 2 + 3?\nAssistant: {"tool":"add","arguments":{"a":2,"b":3}}\nTool result (add): 5\nAssistant:',
      ),
    ).toBe(true);
  });

  it('with required, calls a tool on the first step of a turn and answers on the step after its result', () => {
    const user: Message[] = [{ role: 'user', content: 'hi' }];
    const afterTool: Message[] = [...user, { role: 'tool', toolCallId: 'c', toolName: 'add', content: '5' }];
    expect(replyKind(user, [add], 'required')).toBe('tool');
    expect(replyKind(afterTool, [add], 'required')).toBe('answer');
    expect(replyKind(user, [add], 'auto')).toBe('either');
    expect(replyKind(afterTool, [add], 'auto')).toBe('either');
    expect(replyKind(user, [], 'required')).toBe('either');
    // Strings are capped, so a model that loops closes its JSON within its tokens.
    expect(replySchema([add], 'answer')).toEqual({
      type: 'object',
      properties: { answer: { type: 'string', maxLength: 1200 } },
    });
    expect(replySchema([add], 'tool')).toEqual({
      type: 'object',
      properties: {
        tool: { const: 'add' },
        arguments: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      },
    });
    expect((replySchema([add], 'either') as { oneOf: unknown[] }).oneOf).toHaveLength(2);
  });

  it('reduces JSON Schema to what grammars take, with optional properties nullable', () => {
    expect(
      toGrammarSchema({
        type: 'object',
        properties: {
          method: { type: 'string', enum: ['GET', 'POST'] },
          params: { type: 'object', additionalProperties: { type: 'string' } },
          tags: { type: 'array', items: { type: 'string', minLength: 1 } },
        },
        required: ['method'],
        additionalProperties: false,
      }),
    ).toEqual({
      type: 'object',
      properties: {
        method: { enum: ['GET', 'POST'] },
        params: { oneOf: [{ type: 'object', additionalProperties: { type: 'string' } }, { type: 'null' }] },
        tags: { oneOf: [{ type: 'array', items: { type: 'string', maxLength: 300 } }, { type: 'null' }] },
      },
    });
  });

  it('parses a reply into a tool call (dropping null optionals) or an answer', () => {
    expect(
      parseLocalReply('{"tool": "add", "arguments": {"a": 2, "b": 3, "note": null}}', 'local_1'),
    ).toEqual({
      text: '',
      toolCalls: [{ id: 'local_1', name: 'add', args: { a: 2, b: 3 } }],
    });
    expect(parseLocalReply('{"answer": "It is 5."}', 'local_2')).toEqual({ text: 'It is 5.', toolCalls: [] });
  });

  it('answers with the text of an answer cut short, marked, and never with raw JSON', () => {
    expect(parseLocalReply('{"answer": "Hello! I can \\"help\\" with', 'local_1')).toEqual({
      text: 'Hello! I can "help" with […]',
      toolCalls: [],
    });
    // A tool call cut short (the junk of a 256-token reply) is an error that says how to give it room.
    expect(() =>
      parseLocalReply('{"tool": "custom_api", "arguments": {"method": "GET", "headers": "{', 'local_2'),
    ).toThrow(/cut off before it was complete .*maxTokens/);
    expect(() => parseLocalReply('{"answer": {"team": "bil', 'local_3', { type: 'object' })).toThrow(
      /cut off/,
    );
  });
});

describe("a small model's loops", () => {
  it('keeps a phrase said over and over once, drops the copy cut off after it, and leaves other text alone', () => {
    const looped = `${'service billing, status failed, '.repeat(9)}service bill`;
    expect(withoutLoops(looped)).toBe('service billing, status failed');
    expect(withoutLoops(`Hello, I'm Tim. ${"I'm a clock. ".repeat(5)}I'm`)).toBe(
      "Hello, I'm Tim. I'm a clock",
    );
    // A run of one digit collapses to a phrase of 8 and the rest of the run (300 = 37 × 8 + 4).
    expect(withoutLoops(`{"summary": "${'0'.repeat(300)}"}`)).toBe(`{"summary": "${'0'.repeat(12)}"}`);
    for (const text of ['It is 2026-11-28T16:05:00.000Z', 'Good morning, good morning team!', 'abcabcabc'])
      expect(withoutLoops(text)).toBe(text);
  });

  it('applies to tool arguments and structured answers as the reply is read', () => {
    const reply = parseLocalReply(
      JSON.stringify({ tool: 'notify', arguments: { text: 'deploy failed. '.repeat(6) } }),
      'local_1',
    );
    expect(reply.toolCalls[0]!.args).toEqual({ text: 'deploy failed.' });
  });
});
