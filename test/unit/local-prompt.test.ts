import { describe, expect, it } from 'vitest';
import type { Message, ToolSchema } from '../../src/common/messages.ts';
import {
  mustCallTool,
  parseLocalReply,
  renderLocalPrompt,
  replySchema,
  toGrammarSchema,
} from '../../src/models/local-prompt.ts';

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

  it('forces a tool call only on the first step of a turn, and only when asked to', () => {
    const user: Message[] = [{ role: 'user', content: 'hi' }];
    const afterTool: Message[] = [...user, { role: 'tool', toolCallId: 'c', toolName: 'add', content: '5' }];
    expect(mustCallTool(user, [add], 'required')).toBe(true);
    expect(mustCallTool(afterTool, [add], 'required')).toBe(false);
    expect(mustCallTool(user, [add], 'auto')).toBe(false);
    expect(mustCallTool(user, [], 'required')).toBe(false);
    expect(replySchema([add], true)).toEqual({
      type: 'object',
      properties: {
        tool: { const: 'add' },
        arguments: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      },
    });
    expect((replySchema([add], false) as { oneOf: unknown[] }).oneOf).toHaveLength(2);
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
        tags: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
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
    expect(parseLocalReply('not json', 'local_3')).toEqual({ text: 'not json', toolCalls: [] });
  });
});
