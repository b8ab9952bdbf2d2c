import type { GuardrailKind } from './types.ts';

/**
 * A check's verdict as the run records it (in history): one form per verdict, with what the check
 * said (redacted of the secrets its activity read).
 */
export type RecordedVerdict =
  { allow: true } | { tripwire: string } | { replace: unknown } | { retry: string } | { reject: string };

/** A check that tripped: which, of what kind, and what it said. */
export interface GuardrailTrip {
  kind: GuardrailKind;
  /** The check's name. */
  check: string;
  /** What it said (its `tripwire` reason). */
  reason: string;
  /** A tool check: the call's tool, and whether it tripped before the call ran or on its result. */
  tool?: string;
  phase?: 'before' | 'after';
  /** A streaming output check tripped while the answer was written: the text streamed so far is withdrawn. */
  withdrawn?: boolean;
}

/**
 * Which of the agent's checks a run runs (`guardrails` in the run options), by name: a kind named
 * runs only the checks named (`[]`: none of that kind); a kind left out runs all the agent's.
 */
export interface GuardrailSelection {
  input?: string[];
  output?: string[];
  tools?: string[];
}

/** The agent's checks, as the workflow needs them (names and where they run; the checks stay on the worker). */
export interface GuardrailPlan {
  input?: Array<{ name: string; mode: 'blocking' | 'parallel'; local?: true }>;
  output?: Array<{ name: string; local?: true }>;
  /** The agent whose checks these are (a sub-agent without checks of its own runs its parent's). */
  owner?: string;
  /** The run chose its output and tool checks: streaming output checks and tool checks run only these. */
  output_names?: string[];
  tool_names?: string[];
}

/** The input of the `checkGuardrail` activity: one input or output check of one run. */
export interface CheckGuardrailInput {
  /** The agent whose checks these are. */
  agent: string;
  kind: 'input' | 'output';
  name: string;
  tenant?: string;
  /** The prompt (input) or the answer (output). */
  subject: { prompt: string } | { text: string; output?: unknown };
}

/** What stands in the stored conversation for a prompt, answer or tool result a guardrail withdrew. */
export function withdrawnText(trip: Pick<GuardrailTrip, 'kind' | 'check'>): string {
  return `[Withdrawn: the ${trip.kind} guardrail "${trip.check}" tripped.]`;
}
