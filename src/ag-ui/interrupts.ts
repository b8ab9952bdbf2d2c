import type * as Core from '@ag-ui/core';
import type { AgentChatSession } from '../client/chat-session.ts';
import { ChatRequestError } from '../ui-stream/chat-request.ts';
import { approvalKey } from '../ui-stream/event-chunks.ts';
import type { RunWait } from './ag-ui-events.ts';

/** The answer an approval interrupt expects in its resume entry's `payload`. */
const APPROVAL_ANSWER = {
  type: 'object',
  properties: { approved: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['approved'],
};

/**
 * The interrupts of a turn that waits: one per call waiting for approval (`approval:<call>`) and
 * per call waiting for a user's grant (`authorization:<call>`), read from the session now; `waits`
 * (what the stream saw) stand for themselves when the session no longer lists them.
 */
export async function interruptsOf(session: AgentChatSession, waits: RunWait[]): Promise<Core.Interrupt[]> {
  const [approvals, authorizations] = await Promise.all([
    session.pendingApprovals(),
    session.pendingAuthorizations(),
  ]);
  const interrupts: Core.Interrupt[] = [
    ...approvals.map((approval): Core.Interrupt => {
      const key = approvalKey(approval)!;
      return {
        id: `approval:${key}`,
        reason: 'tool_approval',
        toolCallId: key,
        message: `Allow ${approval.tool} to run with ${JSON.stringify(approval.args)}?`,
        responseSchema: APPROVAL_ANSWER,
        expiresAt: approval.expires_at,
        metadata: {
          tool: approval.tool,
          args: approval.args,
          ...(approval.agent ? { agent: approval.agent } : {}),
        },
      };
    }),
    ...authorizations.map((wait): Core.Interrupt => ({
      id: `authorization:${wait.call_id}`,
      reason: 'authorization',
      toolCallId: wait.call_id,
      message: `${wait.tool} needs access: open ${wait.url} to grant it, then resume.`,
      expiresAt: wait.expires_at,
      metadata: { tool: wait.tool, url: wait.url, credential_key: wait.credential_key, scopes: wait.scopes },
    })),
  ];
  for (const wait of waits) {
    const id = `${wait.kind}:${wait.key}`;
    if (!interrupts.some((interrupt) => interrupt.id === id)) {
      interrupts.push({
        id,
        reason: wait.kind === 'approval' ? 'tool_approval' : 'authorization',
        toolCallId: wait.key,
      });
    }
  }
  return interrupts;
}

/**
 * Decides the waiting calls the resume entries answer, in the turn that waits: an approval
 * interrupt `resolved` with `payload.approved: true` lets its call run; `false` (with
 * `payload.reason`) or `cancelled` declines it. An authorization interrupt is answered by granting
 * access at its URL: `resolved` goes on waiting for the grant. Answers the calls' keys (the stream
 * continues after their waits).
 * @throws ChatRequestError (409) for an interrupt id that is not waiting now (forged, decided, or
 * expired), (400) for an authorization interrupt `cancelled`.
 */
export async function resumeInterrupts(
  session: AgentChatSession,
  entries: readonly Core.ResumeEntry[],
): Promise<Set<string>> {
  const waiting = new Set((await interruptsOf(session, [])).map((interrupt) => interrupt.id));
  const unknown = entries.filter((entry) => !waiting.has(entry.interruptId));
  if (unknown.length > 0) {
    throw new ChatRequestError(
      409,
      `No call of this thread waits on ${unknown.map((entry) => JSON.stringify(entry.interruptId)).join(', ')} ` +
        '(decided already, expired, or never asked): run the thread again without `resume`.',
    );
  }
  const approvals = new Map(
    (await session.pendingApprovals()).map((approval) => [`approval:${approvalKey(approval)}`, approval]),
  );
  const keys = new Set<string>();
  for (const entry of entries) {
    const approval = approvals.get(entry.interruptId);
    keys.add(entry.interruptId.slice(entry.interruptId.indexOf(':') + 1));
    if (!approval) {
      if (entry.status === 'cancelled') {
        throw new ChatRequestError(
          400,
          `Interrupt ${entry.interruptId} waits for a user's grant: grant access at its URL and resume it with status "resolved", or stop the run.`,
        );
      }
      continue;
    }
    const answer = (entry.payload ?? {}) as { approved?: unknown; reason?: unknown };
    if (entry.status === 'resolved' && answer.approved === true) await session.approve(approval.call_id);
    else {
      const reason =
        typeof answer.reason === 'string'
          ? answer.reason
          : entry.status === 'cancelled'
            ? 'Cancelled in the chat.'
            : 'Declined in the chat.';
      await session.reject(approval.call_id, reason);
    }
  }
  return keys;
}
