import type { ToolSchema } from '../common/messages.ts';
import type { ModelResponse } from '../models/model-adapter.ts';
import type { JsonSchemaObject } from './types.ts';

/** The tool a model without native structured output answers with. */
export const FINAL_ANSWER_TOOL = 'final_answer';

/**
 * The final-answer tool for models without native structured output: its parameters are the
 * run's schema (wrapped in an object when the schema describes something else).
 */
export function finalAnswerTool(schema: JsonSchemaObject): ToolSchema {
  const { $schema: _ignored, ...parameters } = schema;
  return {
    type: 'function',
    function: {
      name: FINAL_ANSWER_TOOL,
      description:
        'Give your final answer by calling this tool, once you have everything you need; its arguments are the answer.',
      parameters: parameters.type === 'object' ? parameters : objectWrapped(parameters),
    },
  };
}

function objectWrapped(schema: JsonSchemaObject): JsonSchemaObject {
  return { type: 'object', properties: { value: schema }, required: ['value'], additionalProperties: false };
}

/**
 * A step that called the final-answer tool becomes an answer: its text is the JSON of the call's
 * arguments and the step has no tool calls (other calls of that step are not run).
 */
export function takeFinalAnswer(response: ModelResponse, schema: JsonSchemaObject): ModelResponse {
  const call = response.toolCalls.find((c) => c.name === FINAL_ANSWER_TOOL);
  if (!call) return response;
  const value = schema.type === 'object' ? call.args : call.args.value;
  return { ...response, text: JSON.stringify(value ?? null), toolCalls: [] };
}
