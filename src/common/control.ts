/**
 * Controlling a run from outside (docs/control.md): cancel, deadlines, budgets, tool approval
 * and live text. Names and shapes shared by workflow, activity and client code; no imports.
 */

/** Bounds of one run (or of each turn of a chat session). */
export interface RunLimits {
  /**
   * Stop before the model step that would pass this many tokens in total. The next step reads at
   * least what the last one read and wrote, so that sum is the estimate.
   */
  maxTotalTokens?: number;
  /** Stop before a step whose tool calls would pass this many calls in total. */
  maxToolCalls?: number;
}

/** Which tools wait for a person's decision before they run, and how long they wait. */
export interface ApprovalSettings {
  /** These tools need approval in this agent (instead of each tool's own `needsApproval`). */
  tools: string[];
  /** A call not decided within this time is declined. Default: 7 days. */
  timeoutMs?: number;
}

/** What the workflow is told about approvals when a turn starts (decided on the worker). */
export interface ResolvedApproval {
  /** Tools whose every call needs approval. */
  tools: string[];
  /** Tools whose `needsApproval` is a function: the `needsApproval` activity asks it per call. */
  dynamic: string[];
  timeoutMs: number;
}

/** A tool call waiting for a decision, as `pendingApprovals()` answers it. */
export interface PendingApproval {
  call_id: string;
  tool: string;
  args: Record<string, unknown>;
  /** When the wait started (ISO 8601, workflow time). */
  requested_at: string;
  /** When the call is declined unless decided before (ISO 8601). */
  expires_at: string;
  /** A call of a sub-agent run: that run's workflow id (decide it through the parent's handle all the same). */
  sub_run?: string;
  /** A call of a sub-agent run: the sub-agent. */
  agent?: string;
}

export interface ApproveInput {
  callId: string;
  note?: string;
}

export interface RejectInput {
  callId: string;
  reason: string;
}

export interface CancelInput {
  reason?: string;
}

/** What a model-step activity sends its workflow while the model writes: a batch of text. */
export interface TextDeltaSignal {
  /** The conversation position of the step (identifies the step in flight). */
  seq: number;
  /** The activity attempt: a retried step writes its text again under a higher attempt. */
  attempt: number;
  text: string;
  /** In a structured run: the answer parsed so far (`partial_output`), when it reads as JSON yet. */
  partial?: unknown;
  /**
   * The first batch of a step that carried fast calls says what became of them first (their
   * `CarriedOutcome`s, src/common/model-step.ts), so their events come before the step's live text.
   */
  settled?: unknown[];
  /**
   * The first batch of a run's opening step (`openRun`, which resolves the run and takes its first
   * model step) says what the workflow does not know yet, for the events that come before the text.
   */
  opening?: OpeningHeader;
}

/** What the first live text of an opening step tells the workflow before its plan arrives. */
export interface OpeningHeader {
  maxIterations: number;
  /** MCP servers left out of the run, with why (the run's `warning` event). */
  unavailable_mcps?: Array<{ server: string; reason: string }>;
}

export const CANCEL_UPDATE = 'toolkit.cancel';
export const APPROVE_UPDATE = 'toolkit.approve';
export const REJECT_UPDATE = 'toolkit.reject';
export const PENDING_APPROVALS_QUERY = 'toolkit.pendingApprovals';
export const TEXT_DELTA_SIGNAL = 'toolkit.textDelta';

export const DEFAULT_APPROVAL_TIMEOUT_MS = 7 * 24 * 60 * 60 * 1000;
/** How long text is gathered before it is sent as one `text_delta` (one history event). */
export const DEFAULT_TEXT_DELTA_BATCH_MS = 100;
