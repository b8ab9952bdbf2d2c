import type * as Core from '@ag-ui/core';
import type { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { ConfigurationError } from '../errors.ts';
import { checkFrontendTools } from '../frontend-tools/check.ts';
import type { FrontendTool, ToolResultInput } from '../frontend-tools/types.ts';
import { ChatRequestError, readJsonBody } from '../ui-stream/chat-request.ts';

/**
 * The `RunAgentInput` a POST carries, checked with `@ag-ui/core`'s own schema.
 * @throws ChatRequestError (400) naming what is wrong.
 */
export async function readRunInput(
  request: Request,
  schema: typeof RunAgentInputSchema,
): Promise<Core.RunAgentInput> {
  const body = await readJsonBody(
    request,
    'An AG-UI run needs a JSON body: a RunAgentInput, as HttpAgent sends it.',
  );
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || 'the body'}: ${issue.message}`)
      .join('; ');
    throw new ChatRequestError(400, `The body is not a RunAgentInput (${issues}).`);
  }
  return parsed.data;
}

/**
 * The run's frontend tools (`tools`), offered to the model for the turn: name, description and
 * parameters (their `metadata` stays with the client).
 * @throws ChatRequestError (400) naming a tool a model cannot be offered.
 */
export function frontendToolsOf(input: Core.RunAgentInput): FrontendTool[] {
  try {
    return checkFrontendTools(
      input.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        ...(tool.parameters === undefined ? {} : { parameters: tool.parameters as Record<string, unknown> }),
      })),
      'The run',
    );
  } catch (error) {
    if (error instanceof ConfigurationError) throw new ChatRequestError(400, error.message);
    throw error;
  }
}

/**
 * The results of frontend tool calls the run brings: the `tool` messages at the end of `messages`
 * (what a client appends once it ran the calls the run before left pending), in order.
 */
export function toolResultsOf(input: Core.RunAgentInput): ToolResultInput[] {
  const results: ToolResultInput[] = [];
  for (let i = input.messages.length - 1; i >= 0; i--) {
    const message = input.messages[i]!;
    if (message.role !== 'tool') break;
    results.unshift({
      callId: message.toolCallId,
      content: textOf(message.content),
      ...(message.error === undefined ? {} : { error: message.error }),
    });
  }
  return results;
}

/**
 * The text of the next turn: the input's last message, which is the user's.
 * @throws ChatRequestError (400) when the last message is not a user message with text.
 */
export function nextTurnText(input: Core.RunAgentInput): string {
  const last = input.messages.at(-1);
  if (!last) {
    throw new ChatRequestError(400, 'The run has no messages: send the user message that starts the turn.');
  }
  if (last.role !== 'user') {
    throw new ChatRequestError(
      400,
      `The last message is a ${last.role} message: a new run needs a user message last, \`tool\` messages last that answer the frontend tool calls of the run before, or \`resume\` entries that answer its interrupts.`,
    );
  }
  const text = textOf(last.content).trim();
  if (!text) throw new ChatRequestError(400, 'The last user message has no text: a turn needs some.');
  return text;
}

/** The text of a message's content: a string, or its text parts. */
function textOf(content: string | ReadonlyArray<{ type: string; text?: string }>): string {
  return typeof content === 'string'
    ? content
    : content
        .flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : []))
        .join('\n');
}
