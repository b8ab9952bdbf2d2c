import type { Message, ToolCall, ToolSchema } from '../common/messages.ts';
import type { ModelResponse } from './model-adapter.ts';

/**
 * The text protocol of the local model: the conversation as a plain transcript, and every reply one
 * JSON object, `{"tool": name, "arguments": {...}}` or `{"answer": text}`, which a grammar enforces.
 * Small models follow a transcript far better than a chat template they were not tuned on.
 */
const INTRO = [
  'A conversation between a user and an assistant that can call tools. The assistant replies with one JSON ' +
    'object: {"tool": name, "arguments": {...}} to call a tool, or {"answer": text} to reply to the user. ' +
    'A tool result follows each call; once it has what it needs, the assistant answers.',
  '',
  'Example:',
  'User: What time is it in Paris?',
  'Assistant: {"tool": "world_clock", "arguments": {"city": "Paris"}}',
  'Tool result (world_clock): {"time": "14:05"}',
  'Assistant: {"answer": "It is 14:05 in Paris."}',
  '',
  'Now the real conversation.',
].join('\n');

export function renderLocalPrompt(messages: readonly Message[], tools: readonly ToolSchema[]): string {
  const lines = [INTRO, ''];
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  if (system.length) lines.push(...system, '');
  if (tools.length) {
    lines.push('Tools:');
    for (const tool of tools)
      lines.push(
        `- ${tool.function.name}: ${tool.function.description} Arguments: ${describeArguments(tool)}`,
      );
    lines.push('');
  }
  for (const message of messages) {
    if (message.role === 'user') lines.push(`User: ${message.content}`);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? [])
        lines.push(`Assistant: ${JSON.stringify({ tool: call.name, arguments: call.args })}`);
      if (!message.toolCalls?.length) lines.push(`Assistant: ${JSON.stringify({ answer: message.content })}`);
    }
    if (message.role === 'tool') lines.push(`Tool result (${message.toolName}): ${message.content}`);
  }
  lines.push('Assistant:');
  return lines.join('\n');
}

function describeArguments(tool: ToolSchema): string {
  const properties = (tool.function.parameters.properties ?? {}) as Record<
    string,
    { type?: unknown; description?: string }
  >;
  const parts = Object.entries(properties).map(
    ([name, property]) =>
      `"${name}": ${typeof property.type === 'string' ? property.type : 'value'}${property.description ? ` (${property.description})` : ''}`,
  );
  return `{${parts.join(', ')}}`;
}

/** Whether this step must call a tool: with `required`, the first step after the user's message does. */
export function mustCallTool(
  messages: readonly Message[],
  tools: readonly ToolSchema[],
  toolChoice: 'auto' | 'required',
): boolean {
  return toolChoice === 'required' && tools.length > 0 && messages.at(-1)?.role === 'user';
}

/**
 * The JSON schema (in the subset grammar engines take) that every reply must match. With `output`
 * (a structured run), the answer is held to that schema instead of being text.
 */
export function replySchema(
  tools: readonly ToolSchema[],
  forceTool: boolean,
  output?: Record<string, unknown>,
): Record<string, unknown> {
  const calls = tools.map((tool) => ({
    type: 'object',
    properties: { tool: { const: tool.function.name }, arguments: toGrammarSchema(tool.function.parameters) },
  }));
  const answer = {
    type: 'object',
    properties: { answer: output ? toGrammarSchema(output) : { type: 'string' } },
  };
  const options = forceTool ? calls : [...calls, answer];
  return options.length === 1 ? options[0]! : { oneOf: options };
}

/**
 * A JSON Schema reduced to what grammar engines take: types, properties, items, enums and choices.
 * Every property must be written, so optional ones may be `null` (and are dropped after parsing).
 */
export function toGrammarSchema(schema: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(schema.enum)) return { enum: schema.enum };
  if ('const' in schema) return { const: schema.const };
  const choices = (schema.oneOf ?? schema.anyOf) as Array<Record<string, unknown>> | undefined;
  if (choices) return { oneOf: choices.map(toGrammarSchema) };
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = new Set((schema.required ?? []) as string[]);
      if (Object.keys(properties).length === 0) {
        return {
          type: 'object',
          additionalProperties: schema.additionalProperties ? { type: 'string' } : false,
        };
      }
      return {
        type: 'object',
        properties: Object.fromEntries(
          Object.entries(properties).map(([name, property]) => {
            const reduced = toGrammarSchema(property);
            return [name, required.has(name) ? reduced : { oneOf: [reduced, { type: 'null' }] }];
          }),
        ),
      };
    }
    case 'array':
      return {
        type: 'array',
        items: toGrammarSchema((schema.items ?? { type: 'string' }) as Record<string, unknown>),
      };
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return { type: schema.type };
    default:
      return { type: 'string' };
  }
}

/**
 * The model's JSON reply as a step: a tool call (with null optional arguments dropped) or an answer;
 * a structured answer (`output`: its schema) becomes its JSON text, without the nulls the grammar
 * wrote for optional properties.
 */
export function parseLocalReply(
  text: string,
  callId: string,
  output?: Record<string, unknown>,
): ModelResponse {
  let reply: { tool?: string; arguments?: Record<string, unknown>; answer?: unknown };
  try {
    reply = JSON.parse(text) as typeof reply;
  } catch {
    return { text: text.trim(), toolCalls: [] };
  }
  if (typeof reply.tool === 'string') {
    const args = Object.fromEntries(
      Object.entries(reply.arguments ?? {}).filter(([, value]) => value !== null),
    );
    const call: ToolCall = { id: callId, name: reply.tool, args };
    return { text: '', toolCalls: [call] };
  }
  if (output) return { text: JSON.stringify(dropOptionalNulls(reply.answer ?? null, output)), toolCalls: [] };
  return { text: typeof reply.answer === 'string' ? reply.answer : '', toolCalls: [] };
}

/** Removes the `null` values the grammar allows for optional properties (see {@link toGrammarSchema}). */
function dropOptionalNulls(value: unknown, schema: Record<string, unknown>): unknown {
  if (Array.isArray(value)) {
    const items = (schema.items ?? {}) as Record<string, unknown>;
    return value.map((item) => dropOptionalNulls(item, items));
  }
  if (!value || typeof value !== 'object') return value;
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name, item]) => item !== null || required.has(name))
      .map(([name, item]) => [name, dropOptionalNulls(item, properties[name] ?? {})]),
  );
}
