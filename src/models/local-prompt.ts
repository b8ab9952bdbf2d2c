import type { Message, ToolCall, ToolSchema } from '../common/messages.ts';
import { ModelError } from '../errors.ts';
import { valuesWithoutLoops, withoutLoops } from './local-loops.ts';
import type { ModelResponse } from './model-adapter.ts';

/**
 * The text protocol of the local model: the conversation as a plain transcript, and every reply one
 * JSON object, `{"tool": name, "arguments": {...}}` or `{"answer": text}`, which a grammar enforces.
 * Small models follow a transcript far better than a chat template they were not tuned on.
 */
const INTRO = [
  'A conversation between a user and an assistant that can call tools. The assistant replies with one JSON ' +
    'object: {"tool": name, "arguments": {...}} to call a tool, or {"answer": text} to reply to the user. ' +
    'A tool result follows each call; the assistant answers in its own words from what the results say. ' +
    'When they do not say it, the assistant answers that it does not know; it never makes up a fact.',
  '',
  'Example 1:',
  'User: Hello!',
  'Assistant: {"answer": "Hello! How can I help you today?"}',
  '',
  'Example 2:',
  'User: Who are you?',
  'Assistant: {"answer": "I am an AI assistant. I answer questions and use tools for you."}',
  '',
  'Example 3:',
  'User: How many files are in the inbox folder?',
  'Assistant: {"tool": "count_files", "arguments": {"folder": "inbox"}}',
  'Tool result (count_files): {"folder": "inbox", "files": 12}',
  'Assistant: {"answer": "There are 12 files in the inbox folder."}',
  '',
  // Two questions the tools cannot answer, last: a 270M model copies the pattern nearest the real
  // conversation, and with one such example it still said "Yes, it is snowing" to a weather question.
  'Example 4:',
  'User: Is it raining in Paris?',
  'Assistant: {"tool": "today", "arguments": {}}',
  'Tool result (today): {"date": "2025-03-14"}',
  'Assistant: {"answer": "I don\'t know: my tools do not tell me the weather."}',
  '',
  'Example 5:',
  'User: Is the museum open on Monday?',
  'Assistant: {"tool": "count_files", "arguments": {"folder": "museum"}}',
  'Tool result (count_files): {"folder": "museum", "files": 0}',
  'Assistant: {"answer": "I don\'t know: my tools do not say when the museum is open."}',
  '',
  'Now the real conversation.',
].join('\n');

/**
 * The prompt of one step: the protocol, the system prompt, the tools with their arguments, the shape
 * of a structured answer (`output`) with what each field means, then the transcript.
 */
export function renderLocalPrompt(
  messages: readonly Message[],
  tools: readonly ToolSchema[],
  output?: Record<string, unknown>,
): string {
  const lines = [INTRO, ''];
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  if (system.length) lines.push(...system, '');
  if (tools.length) {
    lines.push('Tools:');
    for (const tool of tools)
      lines.push(
        `- ${tool.function.name}: ${tool.function.description} Arguments: ${describeFields(tool.function.parameters)}`,
      );
    lines.push('');
  }
  if (output) lines.push(`The answer is an object: ${describeFields(output)}`, '');
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

/** An object schema's fields as the model reads them: name, type (or its choices) and meaning. */
function describeFields(schema: Record<string, unknown>): string {
  const properties = (schema.properties ?? {}) as Record<
    string,
    { type?: unknown; enum?: unknown[]; description?: string }
  >;
  const parts = Object.entries(properties).map(([name, property]) => {
    const type = Array.isArray(property.enum)
      ? `one of ${property.enum.map(String).join(' | ')}`
      : typeof property.type === 'string'
        ? property.type
        : 'value';
    return `"${name}": ${type}${property.description ? ` (${property.description})` : ''}`;
  });
  return `{${parts.join(', ')}}`;
}

/**
 * What this step may reply. With `required`, the first step after the user's message calls a tool
 * and the step after its result answers: a very small model cannot judge when a tool is needed, nor
 * when it has what it needs. With `auto`, either.
 */
export function replyKind(
  messages: readonly Message[],
  tools: readonly ToolSchema[],
  toolChoice: 'auto' | 'required',
): ReplyKind {
  if (toolChoice !== 'required' || tools.length === 0) return 'either';
  const last = messages.at(-1)?.role;
  return last === 'user' ? 'tool' : last === 'tool' ? 'answer' : 'either';
}

export type ReplyKind = 'tool' | 'answer' | 'either';

/**
 * The JSON schema (in the subset grammar engines take) that every reply must match. With `output`
 * (a structured run), the answer is held to that schema instead of being text.
 */
export function replySchema(
  tools: readonly ToolSchema[],
  kind: ReplyKind,
  output?: Record<string, unknown>,
): Record<string, unknown> {
  const calls = tools.map((tool) => ({
    type: 'object',
    properties: { tool: { const: tool.function.name }, arguments: toGrammarSchema(tool.function.parameters) },
  }));
  const answer = {
    type: 'object',
    properties: { answer: output ? toGrammarSchema(output) : { type: 'string', maxLength: ANSWER_CHARS } },
  };
  const options = kind === 'tool' ? calls : kind === 'answer' ? [answer] : [...calls, answer];
  return options.length === 1 ? options[0]! : { oneOf: options };
}

/**
 * The longest text answer and the longest string value the grammar lets the model write: a small
 * model that loops on a phrase or a digit is made to close its JSON within `maxTokens` (512).
 */
const ANSWER_CHARS = 1200;
const VALUE_CHARS = 300;

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
      return { type: 'string', maxLength: Math.min(Number(schema.maxLength ?? VALUE_CHARS), VALUE_CHARS) };
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
 * The model's JSON reply as a step: a tool call (with null optional arguments dropped) or an answer,
 * each without a phrase the model fell to repeating ({@link withoutLoops});
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
    return cutOffReply(text, output);
  }
  if (typeof reply.tool === 'string') {
    const args = Object.fromEntries(
      Object.entries(reply.arguments ?? {})
        .filter(([, value]) => value !== null)
        .map(([name, value]) => [name, valuesWithoutLoops(value)]),
    );
    const call: ToolCall = { id: callId, name: reply.tool, args };
    return { text: '', toolCalls: [call] };
  }
  if (output) {
    const answer = valuesWithoutLoops(dropOptionalNulls(reply.answer ?? null, output));
    return { text: JSON.stringify(answer), toolCalls: [] };
  }
  return { text: typeof reply.answer === 'string' ? withoutLoops(reply.answer) : '', toolCalls: [] };
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

/**
 * A reply the grammar did not let finish (it ran out of tokens): the text of an answer cut short,
 * marked so; never the raw JSON. A tool call or a structured answer cut short cannot be used: the
 * error says how to give the model room.
 */
function cutOffReply(text: string, output: Record<string, unknown> | undefined): ModelResponse {
  const answer = /^\s*\{\s*"answer"\s*:\s*"((?:[^"\\]|\\.)*)/.exec(text);
  if (answer && !output) {
    const written = answer[1]!.replace(/\\$/, '');
    const said = JSON.parse(`"${written}"`) as string;
    if (said.trim()) return { text: `${said.trim()} […]`, toolCalls: [] };
  }
  throw new ModelError(
    `The local model's reply was cut off before it was complete (${text.length} characters: ` +
      `${text.slice(0, 80)}…). Give it more room with \`maxTokens\` on LocalLlamaModel, or use a larger model.`,
    { retryable: false },
  );
}
