import type { UIMessage } from 'ai';

/** The body `useChat` (the AI SDK's `DefaultChatTransport`) POSTs: the chat's id and its messages. */
export interface ChatRequestBody {
  id: string;
  messages: UIMessage[];
  trigger?: 'submit-message' | 'regenerate-message';
  messageId?: string;
}

/** What a POST asks for: a new turn with the last user message, or decisions on waiting approvals. */
export type ChatAsk =
  | { kind: 'message'; text: string; messageId: string }
  | { kind: 'approvals'; decisions: ApprovalDecision[]; messageId: string };

export interface ApprovalDecision {
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/** A request the handler refuses (status 400/403/404/409), with a message saying what to do. */
export class ChatRequestError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ChatRequestError';
    this.status = status;
  }
}

/** A request's JSON body. @throws ChatRequestError (400) with `needs` when it is not JSON. */
export async function readJsonBody(request: Request, needs: string): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new ChatRequestError(400, needs);
  }
}

/** The body as `useChat` sends it, checked. @throws ChatRequestError (400) naming what is wrong. */
export async function readChatBody(request: Request): Promise<ChatRequestBody> {
  const body = await readJsonBody(
    request,
    'The chat request needs a JSON body: { id, messages } as useChat sends it.',
  );
  const { id, messages } = (body ?? {}) as Partial<ChatRequestBody>;
  if (typeof id !== 'string' || id === '') {
    throw new ChatRequestError(400, 'The chat request has no `id` (the chat id useChat sends).');
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new ChatRequestError(
      400,
      'The chat request has no `messages`: send the conversation as useChat does.',
    );
  }
  return body as ChatRequestBody;
}

/**
 * What the last message asks: a user message is a new turn (its text parts); an assistant message
 * whose tool parts carry approval responses (`addToolApprovalResponse`) decides those approvals.
 * @throws ChatRequestError (400) when it is neither.
 */
export function chatAsk(body: ChatRequestBody): ChatAsk {
  const last = body.messages.at(-1)!;
  const parts = Array.isArray(last.parts) ? last.parts : [];
  if (last.role === 'user') {
    const text = parts
      .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
      .join('\n')
      .trim();
    if (!text) throw new ChatRequestError(400, 'The last message has no text: a chat turn needs some.');
    return { kind: 'message', text, messageId: String(last.id) };
  }
  const decisions = parts.flatMap((part) => {
    const { state, approval } = part as {
      state?: unknown;
      approval?: Partial<ApprovalDecision> & { id?: unknown };
    };
    if (state !== 'approval-responded' || !approval || typeof approval.id !== 'string') return [];
    return [
      {
        approvalId: approval.id,
        approved: approval.approved === true,
        ...(typeof approval.reason === 'string' ? { reason: approval.reason } : {}),
      },
    ];
  });
  if (last.role === 'assistant' && decisions.length > 0) {
    return { kind: 'approvals', decisions, messageId: String(last.id) };
  }
  throw new ChatRequestError(
    400,
    'The last message is neither a user message nor an answer to tool approvals (addToolApprovalResponse): nothing to do.',
  );
}
