import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { PendingApproval } from '../common/control.ts';
import type { PendingAuthorization } from '../common/authorization.ts';
import {
  approveUpdate,
  cancelUpdate,
  pendingAuthorizationsQuery,
  pendingToolCallsQuery,
  rejectUpdate,
  toolResultUpdate,
} from '../common/workflow-definitions.ts';
import type { ToolResultInput } from '../frontend-tools/types.ts';
import { ControlRefusedError } from '../errors.ts';
import { approvalHolder, pendingInTree } from '../subagents/child-approvals.ts';

/**
 * The outside controls of a run or chat session, by workflow: each is an update the workflow
 * validates (a refusal is a {@link ControlRefusedError}, never history); pending approvals are read
 * with a query, which costs no history.
 */
export class RunControls {
  readonly #workflow: () => Promise<WorkflowHandle>;

  constructor(workflow: () => Promise<WorkflowHandle>) {
    this.#workflow = workflow;
  }

  cancel(reason?: string): Promise<void> {
    return this.#update(cancelUpdate, reason === undefined ? {} : { reason });
  }

  /** Decisions reach the run, or the sub-agent run of the run where the call waits. */
  approve(callId: string, opts: { note?: string } = {}): Promise<void> {
    const input = { callId, ...(opts.note === undefined ? {} : { note: opts.note }) };
    return this.#decide(approveUpdate, input);
  }

  reject(callId: string, reason: string): Promise<void> {
    return this.#decide(rejectUpdate, { callId, reason });
  }

  /**
   * The result of a frontend tool call, once per call: the update's id is the call's, so a result
   * sent again is Temporal's duplicate of the first (it changes nothing) while the run remembers it.
   */
  sendToolResult(input: ToolResultInput): Promise<void> {
    return this.#update(toolResultUpdate, input, undefined, `tool-result:${input.callId}`);
  }

  /** The calls waiting in the run and in its running sub-agent runs (tagged `sub_run`, `agent`). */
  async pendingApprovals(): Promise<PendingApproval[]> {
    return (await pendingInTree(await this.#workflow())).map((entry) => entry.approval);
  }

  async pendingAuthorizations(): Promise<PendingAuthorization[]> {
    return (await this.#workflow()).query(pendingAuthorizationsQuery);
  }

  /** The frontend tool calls waiting for their result; none when the workflow does not exist. */
  async pendingToolCalls(): Promise<string[]> {
    return (await this.#workflow()).query(pendingToolCallsQuery).catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return [];
      throw error;
    });
  }

  /**
   * A decision goes to the run; when the run refuses it (the call does not wait there) but is
   * running, to the sub-agent run where the call waits, if any. Otherwise the run's refusal stands.
   */
  async #decide<T extends { callId: string }>(update: UpdateDefinition<void, [T]>, input: T): Promise<void> {
    try {
      await this.#update(update, input);
    } catch (error) {
      if (!(error instanceof ControlRefusedError) || error.cause instanceof WorkflowNotFoundError)
        throw error;
      const workflow = await this.#workflow();
      const holder = await approvalHolder(workflow, input.callId).catch(() => workflow);
      if (holder === workflow) throw error;
      await this.#update(update, input, holder);
    }
  }
  async #update<T>(
    update: UpdateDefinition<void, [T]>,
    input: T,
    target?: WorkflowHandle,
    updateId?: string,
  ): Promise<void> {
    const workflow = target ?? (await this.#workflow());
    try {
      await workflow.executeUpdate(update, { args: [input], ...(updateId ? { updateId } : {}) });
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        throw new ControlRefusedError(workflow.workflowId, 'it has already ended (or never started).', {
          cause: error,
        });
      }
      if (!(error instanceof WorkflowUpdateFailedError)) throw error;
      let root: unknown = error;
      while (root instanceof Error && root.cause instanceof Error) root = root.cause;
      const reason = root instanceof Error ? root.message : String(root);
      throw new ControlRefusedError(workflow.workflowId, reason, { cause: error });
    }
  }
}

/**
 * The methods on waiting calls shared by `AgentRunHandle` and `AgentChatSession` (for a session: the
 * calls of the turn that is running): approvals, grants, frontend tool results.
 */
export abstract class ApprovalControls {
  protected abstract readonly controls: RunControls;

  /** Lets a tool call that waits for approval run. Refused for an unknown or already decided call id. */
  approve(callId: string, opts: { note?: string } = {}): Promise<void> {
    return this.controls.approve(callId, opts);
  }

  /** Declines a tool call that waits for approval: the model gets "declined: <reason>" as its result. */
  reject(callId: string, reason: string): Promise<void> {
    return this.controls.reject(callId, reason);
  }

  /**
   * Sends the result of a frontend tool call the run waits on (a tool the client offered with
   * `frontendTools` and ran itself): the model sees `content`, or with `error` a failed call.
   * Sent again, it changes nothing. Refused (`ControlRefusedError`) for a call that does not wait.
   */
  sendToolResult(callId: string, content: string, opts: { error?: string } = {}): Promise<void> {
    return this.controls.sendToolResult({
      callId,
      content,
      ...(opts.error === undefined ? {} : { error: opts.error }),
    });
  }

  /** The ids of the frontend tool calls waiting for their result now (see `sendToolResult`). */
  pendingToolCalls(): Promise<string[]> {
    return this.controls.pendingToolCalls();
  }

  /** The tool calls waiting for a decision now. */
  pendingApprovals(): Promise<PendingApproval[]> {
    return this.controls.pendingApprovals();
  }

  /** The tool calls waiting for a user's grant now, each with the URL to open. */
  pendingAuthorizations(): Promise<PendingAuthorization[]> {
    return this.controls.pendingAuthorizations();
  }
}
