import { repairMessage } from './repair.ts';
import type { OutputCheck, OutputFailure, OutputSpec } from './types.ts';

/** What to do with an answer of a structured run. */
export type AnswerVerdict =
  | { kind: 'accepted'; value: unknown }
  /** Send `message` back to the model (as a user message) and ask again. */
  | { kind: 'repair'; message: string }
  | { kind: 'failed'; failure: OutputFailure; message: string };

/**
 * The state of a structured run's answer across its steps: the checks come from the model step's
 * activity, this decides (deterministically, no I/O: the workflow calls it) whether to accept, send
 * the answer back with what did not match (at most `spec.repairs` times), or give up.
 */
export class StructuredAnswer {
  readonly spec: OutputSpec;
  /** Answers sent back so far. */
  repairs = 0;
  /** The accepted value, once there is one. */
  value: unknown;

  constructor(spec: OutputSpec) {
    this.spec = spec;
  }

  /** The verdict on one answer (a step without tool calls) and its check. */
  accept(text: string, check: OutputCheck | undefined): AnswerVerdict {
    const checked: OutputCheck = check ?? {
      ok: false,
      issues: [{ path: '', message: 'the answer was not checked against the schema' }],
    };
    if (checked.ok) {
      this.value = checked.value;
      return { kind: 'accepted', value: checked.value };
    }
    if (this.repairs < this.spec.repairs) {
      this.repairs += 1;
      return { kind: 'repair', message: repairMessage(checked.issues, this.repairs, this.spec.repairs) };
    }
    const failure: OutputFailure = {
      code: 'INVALID_OUTPUT',
      issues: checked.issues,
      raw: text,
      attempts: this.repairs + 1,
    };
    const first = checked.issues[0];
    const where = first ? ` (${first.path || 'the whole answer'}: ${first.message})` : '';
    return {
      kind: 'failed',
      failure,
      message: `The answer did not match the output schema after ${failure.attempts} attempt(s)${where}.`,
    };
  }
}
