import type { GuardrailSelection } from '../guardrails/recorded.ts';
import type { CachingOption } from '../caching/options.ts';
import type { Skill } from '../skills/skill.ts';
import type { RunLimits } from './control.ts';
import type { ClosedRunEvents } from './events.ts';
import type { AgentResult } from './run.ts';
import type { JsonSchemaObject } from '../output/types.ts';
import type { FrontendTool } from '../frontend-tools/types.ts';

/** The input of the `chatSession` workflow (one per session, id `chat-<sessionId>`). */
export interface ChatSessionInput {
  agent: string;
  sessionId: string;
  tenant?: string;
  maxIterations?: number;
  skills?: Array<string | Skill>;
  model?: string;
  /** Each turn ends with `stop_reason: 'deadline'` after this long. */
  timeoutMs?: number;
  /** Each turn's budget (`stop_reason: 'budget'`). */
  limits?: RunLimits;
  /** The session ends after this long without a turn; `send` resumes it from its stored history. Default 7 days. */
  idleTimeoutMs?: number;
  /** The provider's prompt cache for every turn (the agent's `caching` otherwise). */
  caching?: CachingOption;
  /** Which of the agent's guardrails every turn runs, by name (all of them otherwise). */
  guardrails?: GuardrailSelection;
  /** Carried across continue-as-new: references and counters only, never message texts. */
  state?: ChatSessionState;
}

export interface ChatSessionState {
  turns: number;
  /** Position of the next message in the stored conversation. */
  messageCount: number;
  /** The last event seq, so seqs continue across runs. */
  lastEventSeq: number;
  /** The ids of the latest turns (at most {@link RECENT_TURN_IDS}), so a message sent again is refused after continue-as-new too. */
  recentTurnIds?: string[];
  /** The agent holding the conversation after a handoff (`transfer_to_<name>`); the session's own before. */
  agent?: string;
  /** Where the turns not yet condensed into long-term memory observations begin (`memory.observe`). */
  observedSeq?: number;
}

/** The turn a session runs now, as its state query says: its id and the last event seq before it. */
export interface RunningTurn {
  turn_id: string;
  after_seq: number;
}

/** What the session state query answers: the counters, whether a turn runs or waits, and the one that runs. */
export type SessionStateView = ChatSessionState & { busy: boolean; running?: RunningTurn };

/** How many turn ids a session remembers to refuse a message sent twice (`DuplicateTurn`). */
export const RECENT_TURN_IDS = 500;

/** What `send` carries: the prompt and a client-chosen id that tags the turn's events. */
export interface SendInput {
  prompt: string;
  turnId: string;
  /** Refuse this send unless it would be this turn (guards against a client acting on a stale view). */
  expectedTurn?: number;
  /** A structured answer for this turn: the JSON Schema it must match. */
  output?: JsonSchemaObject;
  /** Repair steps for this turn's answer (default: the agent's, else 2). */
  outputRepairs?: number;
  /** Tools the client offers for this turn and runs itself (`AgentRunInput.frontendTools`). */
  frontendTools?: FrontendTool[];
}

/** One turn's result; `output` is the parsed object when the turn asked for one. */
export interface ChatTurnResult<T = string> extends AgentResult<T> {
  turn: number;
}

/**
 * What the `send` update answers: the turn's result and its events (from where the turn started),
 * so a reader finishes the turn from the answer, even after the session continued as new.
 * `AgentChatSession.send` returns the result alone.
 */
export type ChatTurnOutput = ChatTurnResult<unknown> & { events?: ClosedRunEvents };

export const SEND_UPDATE = 'toolkit.send';
/** The update that hands a session a message and answers once it is queued, not when it is answered. */
export const DELIVER_UPDATE = 'toolkit.deliver';
/** The same as a signal, for workflows (a schedule's `sessionMessage`), which cannot send updates. */
export const DELIVER_SIGNAL = 'toolkit.deliverSignal';

/** A scheduled message into a chat session: `sessionMessage` starts the session if needed and delivers it. */
export interface SessionMessageInput {
  session: ChatSessionInput;
  prompt: string;
}
export const SESSION_STATE_QUERY = 'toolkit.sessionState';
export const MAX_PROMPT_CHARS = 200_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 7 * 24 * 60 * 60 * 1000;

export function chatWorkflowId(sessionId: string): string {
  return `chat-${sessionId}`;
}
