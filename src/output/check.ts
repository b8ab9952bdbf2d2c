import { z } from 'zod';
import type { JsonSchemaObject, OutputCheck, OutputIssue } from './types.ts';

/** Validators by schema text: a run checks every answer against the same schema. */
const validators = new Map<string, z.ZodType>();

function validatorOf(schema: JsonSchemaObject): z.ZodType {
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (!validator) {
    validator = z.fromJSONSchema(schema);
    if (validators.size >= 64) validators.delete(validators.keys().next().value!);
    validators.set(key, validator);
  }
  return validator;
}

/**
 * Checks a final answer against the run's JSON Schema (in the model step's activity, never in
 * workflow code): parses it as JSON (a single surrounding code fence is tolerated) and validates
 * it. The issues name the failing paths, for the repair message and `OutputValidationError`.
 */
export function checkAnswer(text: string, schema: JsonSchemaObject): OutputCheck {
  const body = unfenced(text);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const detail = body.trim() === '' ? 'the answer is empty' : (error as Error).message;
    return { ok: false, issues: [{ path: '', message: `not valid JSON: ${detail}` }] };
  }
  const parsed = validatorOf(schema).safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, issues: parsed.error.issues.map(toIssue) };
}

function toIssue(issue: z.core.$ZodIssue): OutputIssue {
  return { path: formatPath(issue.path), message: issue.message };
}

/** `rows[2].amount` from `['rows', 2, 'amount']`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text;
}

function unfenced(text: string): string {
  const fenced = /^\s*```[\w-]*\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return fenced ? fenced[1]! : text;
}
