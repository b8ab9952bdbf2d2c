import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import {
  APPROVE_UPDATE,
  CANCEL_UPDATE,
  PENDING_APPROVALS_QUERY,
  REJECT_UPDATE,
  type ApproveInput,
  type CancelInput,
  type PendingApproval,
  type RejectInput,
} from '../common/control.ts';
import { PENDING_AUTHORIZATIONS_QUERY, type PendingAuthorization } from '../common/authorization.ts';
import { ControlRefusedError } from '../errors.ts';

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
    return this.#update<CancelInput>(CANCEL_UPDATE, reason === undefined ? {} : { reason });
  }

  approve(callId: string, opts: { note?: string } = {}): Promise<void> {
    return this.#update<ApproveInput>(APPROVE_UPDATE, {
      callId,
      ...(opts.note === undefined ? {} : { note: opts.note }),
    });
  }

  reject(callId: string, reason: string): Promise<void> {
    return this.#update<RejectInput>(REJECT_UPDATE, { callId, reason });
  }

  async pendingApprovals(): Promise<PendingApproval[]> {
    return (await this.#workflow()).query<PendingApproval[]>(PENDING_APPROVALS_QUERY);
  }

  async pendingAuthorizations(): Promise<PendingAuthorization[]> {
    return (await this.#workflow()).query<PendingAuthorization[]>(PENDING_AUTHORIZATIONS_QUERY);
  }

  async #update<T>(name: string, input: T): Promise<void> {
    const workflow = await this.#workflow();
    try {
      await workflow.executeUpdate<void, [T]>(name, { args: [input] });
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
 * The approval methods shared by `AgentRunHandle` and `AgentChatSession` (for a session: the calls
 * of the turn that is running).
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

  /** The tool calls waiting for a decision now. */
  pendingApprovals(): Promise<PendingApproval[]> {
    return this.controls.pendingApprovals();
  }

  /** The tool calls waiting for a user's grant now, each with the URL to open. */
  pendingAuthorizations(): Promise<PendingAuthorization[]> {
    return this.controls.pendingAuthorizations();
  }
}
