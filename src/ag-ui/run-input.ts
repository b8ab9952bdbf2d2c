import type * as Core from '@ag-ui/core';
import type { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { ChatRequestError, readJsonBody } from '../ui-stream/chat-request.ts';

/**
 * The `RunAgentInput` a POST carries, checked with `@ag-ui/core`'s own schema.
 * @throws ChatRequestError (400) naming what is wrong, or the frontend tools it offers (the agent's
 * tools are its own, on the worker).
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
  const { tools } = parsed.data;
  if (tools.length > 0) {
    throw new ChatRequestError(
      400,
      `The run offers frontend tools (${tools.map((tool) => tool.name).join(', ')}), which this server does not run yet: give the agent its tools on the worker, and send \`tools: []\`.`,
    );
  }
  return parsed.data;
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
      `The last message is a ${last.role} message: a new run needs a user message last, or \`resume\` entries that answer the interrupts of the run before.`,
    );
  }
  const content = last.content;
  const text = (
    typeof content === 'string'
      ? content
      : content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
  ).trim();
  if (!text) throw new ChatRequestError(400, 'The last user message has no text: a turn needs some.');
  return text;
}
