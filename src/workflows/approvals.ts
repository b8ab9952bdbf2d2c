import { ApplicationFailure, condition } from '@temporalio/workflow';
import type { ApproveInput, PendingApproval, RejectInput } from '../common/control.ts';
import type { ToolCall } from '../common/messages.ts';

/** A person's decision on one tool call; a timeout counts as a rejection. */
export type ApprovalDecision = { approved: true; note?: string } | { approved: false; reason: string };

/**
 * The tool calls of a run that wait for a person (docs/control.md). Waiting is a durable
 * `condition` with a timeout, so it survives worker restarts (replay rebuilds it); decisions arrive
 * as updates whose validators ({@link Approvals.validateApprove}, {@link Approvals.validateReject})
 * refuse unknown and already decided call ids before anything reaches history.
 */
export class Approvals {
  readonly #pending = new Map<string, PendingApproval>();
  readonly #decisions = new Map<string, ApprovalDecision>();

  list(): PendingApproval[] {
    return [...this.#pending.values()];
  }

  /**
   * Waits for a decision on `call` for at most `timeoutMs`. Rejects with the scope's cancellation
   * when the run is stopped meanwhile.
   */
  async wait(call: ToolCall, timeoutMs: number): Promise<ApprovalDecision> {
    const now = Date.now();
    this.#pending.set(call.id, {
      call_id: call.id,
      tool: call.name,
      args: call.args,
      requested_at: new Date(now).toISOString(),
      expires_at: new Date(now + timeoutMs).toISOString(),
    });
    try {
      const decided = await condition(() => this.#decisions.has(call.id), timeoutMs);
      if (!decided) {
        const decision: ApprovalDecision = {
          approved: false,
          reason: `no decision within ${formatDuration(timeoutMs)}`,
        };
        this.#decisions.set(call.id, decision);
        return decision;
      }
      return this.#decisions.get(call.id)!;
    } finally {
      this.#pending.delete(call.id);
    }
  }

  approve({ callId, note }: ApproveInput): void {
    this.#decisions.set(callId, { approved: true, ...(note ? { note } : {}) });
  }

  reject({ callId, reason }: RejectInput): void {
    this.#decisions.set(callId, { approved: false, reason });
  }

  validateApprove(input: ApproveInput): void {
    this.#validate(input?.callId);
    if (input.note !== undefined && typeof input.note !== 'string') {
      throw refusal('An approval note must be a string.');
    }
  }

  validateReject(input: RejectInput): void {
    this.#validate(input?.callId);
    if (typeof input.reason !== 'string' || input.reason.trim() === '') {
      throw refusal("A rejection needs a reason (it is given to the model as the call's result).");
    }
  }

  #validate(callId: unknown): void {
    if (typeof callId !== 'string' || callId === '') throw refusal('Name the tool call by its callId.');
    const decision = this.#decisions.get(callId);
    if (decision) {
      throw refusal(
        `Tool call "${callId}" was already ${decision.approved ? 'approved' : 'rejected'}; a decision cannot be changed.`,
      );
    }
    if (!this.#pending.has(callId)) {
      const waiting = [...this.#pending.keys()];
      throw refusal(
        `No tool call "${callId}" is waiting for approval in this run. ` +
          (waiting.length
            ? `Waiting: ${waiting.join(', ')}.`
            : 'No call is waiting; see pendingApprovals().'),
      );
    }
  }
}

function refusal(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, 'ApprovalRefused');
}

function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}
