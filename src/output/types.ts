/**
 * Structured output as the workflow sees it: plain data, no imports, so workflow and worker code
 * share it. The schema is a JSON Schema object; zod schemas are converted before a run starts.
 */

/** A JSON Schema object (draft 2020-12, as `z.toJSONSchema` writes it). */
export type JsonSchemaObject = Record<string, unknown>;

/** What a run asks of its final answer: the schema, and how many repair steps it allows. */
export interface OutputSpec {
  schema: JsonSchemaObject;
  /** Repair steps after the first answer (default {@link DEFAULT_OUTPUT_REPAIRS}). */
  repairs: number;
}

/** The default of `outputRepairs`: an answer that does not match is sent back this many times. */
export const DEFAULT_OUTPUT_REPAIRS = 2;

/** One way an answer does not match its schema: where (`''` for the whole answer) and what. */
export interface OutputIssue {
  /** The JSON path of the failing value, e.g. `priority` or `rows[2].amount`; `''` is the whole answer. */
  path: string;
  message: string;
}

/** The check of one answer against the run's schema, made in the model step's activity. */
export type OutputCheck = { ok: true; value: unknown } | { ok: false; issues: OutputIssue[] };

/** What a structured run that could not get a matching answer reports (`metadata.output_error`). */
export interface OutputFailure {
  code: 'INVALID_OUTPUT';
  issues: OutputIssue[];
  /** The last answer as the model wrote it. */
  raw: string;
  /** Answering steps the run made: 1 + the repairs. */
  attempts: number;
}
