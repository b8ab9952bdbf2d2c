import { ApplicationFailure } from '@temporalio/common';
import { closestName } from '../common/closest-name.ts';
import { WORKFLOW_INPUTS } from './workflow-inputs.generated.ts';

/** The failure type of a workflow started with an input it cannot use. */
export const INVALID_WORKFLOW_INPUT = 'InvalidWorkflowInput';

/**
 * Checks a workflow's input against the wire contract (schemas/toolkit-agent.schema.json): an
 * object, with every required key, no unknown key (the closest known one is named), and each key of
 * a JSON type it may have. A client in another language that sends `agentName` learns that the key
 * is `agent`, instead of a run that fails later on `undefined`. Throws a non-retryable
 * {@link INVALID_WORKFLOW_INPUT} failure, which fails the workflow at its first task.
 */
export function checkWorkflowInput(workflow: keyof typeof WORKFLOW_INPUTS, input: unknown): void {
  const fail = (problem: string): never => {
    throw ApplicationFailure.nonRetryable(
      `The ${workflow} workflow's input ${problem} See docs/calling-from-any-language.md for its keys.`,
      INVALID_WORKFLOW_INPUT,
    );
  };
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    fail(
      `must be one JSON object; it is ${input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input}.`,
    );
  }
  const { required, properties } = WORKFLOW_INPUTS[workflow];
  const known: Record<string, readonly string[]> = properties;
  const given = input as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (Object.hasOwn(known, key)) continue;
    const hint = closestName(key, Object.keys(known));
    fail(`has an unknown key "${key}"${hint ? `: did you mean "${hint}"?` : '.'}`);
  }
  for (const key of required) {
    if (given[key] === undefined) fail(`lacks the required key "${key}".`);
  }
  for (const [key, value] of Object.entries(given)) {
    const types = known[key]!;
    if (value === undefined || types.length === 0 || types.includes(jsonType(value))) continue;
    fail(`has "${key}" of type ${jsonType(value)}; it must be ${types.join(' or ')}.`);
  }
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
