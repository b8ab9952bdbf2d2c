/**
 * Guardrails: checks on what goes into a run (its prompt), what comes out (its answer) and the tool
 * calls in between. Each is user code run on the worker (by default in an activity of its own, so
 * its verdict is recorded in the run's history and never asked again on replay).
 */

/**
 * What a check answers. Allow: `undefined` (or nothing), `true` or `{ allow: true }`. The others:
 * - `{ tripwire: reason }` ends the run (`stop_reason: 'guardrail'`, `GuardrailTripped` from the client);
 * - `{ replace: value }` goes on with `value` instead (input: the prompt; output: the answer);
 * - `{ retry: feedback }` (output checks) sends `feedback` to the model for one more step;
 * - `{ reject: message }` (tool checks) does not run the call (or withholds its result): the model
 *   sees `message` as the call's result.
 */
export type GuardrailVerdict<Replace = string> =
  | undefined
  | void
  | true
  | { allow: true }
  | { tripwire: string }
  | { replace: Replace }
  | { retry: string }
  | { reject: string };

/** What a check is told about the run it checks. */
export interface GuardrailContext {
  /** The agent whose run it is. */
  agent: string;
  workflowId: string;
  runId: string;
  tenant?: string | undefined;
  /** Aborted when the check's activity is cancelled (the run stopped, or a parallel step ended it). */
  signal: AbortSignal;
}

/** Where a check runs: `'activity'` (default: its verdict is recorded) or `'local'` (a local activity: for pure, fast functions). */
export type GuardrailPlacement = 'activity' | 'local';

export type InputCheck = (
  prompt: string,
  context: GuardrailContext,
) => GuardrailVerdict<string> | Promise<GuardrailVerdict<string>>;

/** A check of a run's prompt (each chat turn's prompt too). */
export interface InputGuardrail {
  name: string;
  check: InputCheck;
  /**
   * `'blocking'` (default): the model is asked only once the check allowed the prompt.
   * `'parallel'`: the check runs beside the first model step; a trip cancels that step, and none of
   * its tool calls runs (nor does its answer count) before every input check has allowed the prompt.
   * A parallel check cannot `replace` the prompt (the model already has it).
   */
  mode?: 'blocking' | 'parallel';
  runs?: GuardrailPlacement;
}

/** The answer an output check sees: the text, and in a structured run the checked object. */
export interface GuardrailAnswer {
  text: string;
  /** A structured run's answer (the object matching its schema). */
  output?: unknown;
  /** True while the answer is still being written (a `streaming` check, at each batch of live text). */
  partial?: boolean;
}

export type OutputCheck = (
  answer: GuardrailAnswer,
  context: GuardrailContext,
) => GuardrailVerdict<unknown> | Promise<GuardrailVerdict<unknown>>;

/** A check of a run's final answer. */
export interface OutputGuardrail {
  name: string;
  check: OutputCheck;
  /**
   * Also check the text so far at each batch of live text, inside the model step (needs live text):
   * a trip stops the step, and the streamed text is withdrawn. Only `tripwire` counts there.
   */
  streaming?: boolean;
  runs?: GuardrailPlacement;
}

/** One tool call, as a tool check sees it: before it runs (`args`), and after (`result` too). */
export interface GuardrailToolCall {
  phase: 'before' | 'after';
  tool: string;
  args: unknown;
  /** The result's text, as the model would see it (after redaction and capping). */
  result?: string;
}

export type ToolCheck = (
  call: GuardrailToolCall,
  context: GuardrailContext,
) => GuardrailVerdict<never> | Promise<GuardrailVerdict<never>>;

/**
 * A check of each tool call, before it runs and after. Runs inside the call's own activity (where
 * its arguments and result are), so its verdict is recorded with the call's outcome.
 */
export interface ToolGuardrail {
  name: string;
  check: ToolCheck;
  /** The tools it checks (default: every tool the activity runs; not sub-agent calls or handoffs). */
  tools?: string[];
}

/** A check as given: a named object, or a function (named by the function's name). */
export type Guardrail<G extends { name: string; check: unknown }> = G | G['check'];

/** An agent's guardrails (`guardrails` of an agent definition). */
export interface Guardrails {
  input?: Array<Guardrail<InputGuardrail>>;
  output?: Array<Guardrail<OutputGuardrail>>;
  tools?: Array<Guardrail<ToolGuardrail>>;
}

/** Which kind of check. */
export type GuardrailKind = 'input' | 'output' | 'tool';
