import { z } from 'zod';
import { ConfigurationError } from '../errors.ts';
import { DEFAULT_OUTPUT_REPAIRS, type JsonSchemaObject, type OutputSpec } from './types.ts';

/**
 * A JSON Schema object that names the type of the value it describes, so that results are typed
 * without zod: `const triage: JsonSchema<Triage> = { type: 'object', ... }`.
 */
export type JsonSchema<T = unknown> = JsonSchemaObject & { readonly '~output'?: T };

/** What `output` takes: a zod schema, or a JSON Schema object. */
export type OutputSchema = z.ZodType | JsonSchema;

/** The value a schema describes: `z.output` of a zod schema, `T` of a `JsonSchema<T>`. */
export type InferOutput<S> = S extends z.ZodType ? z.output<S> : S extends JsonSchema<infer T> ? T : never;

/** The type of `result.output`: the run's schema wins over the agent's; text without either. */
export type ResultOutput<RunSchema, AgentSchema = undefined> = [RunSchema] extends [OutputSchema]
  ? InferOutput<RunSchema>
  : [AgentSchema] extends [OutputSchema]
    ? InferOutput<AgentSchema>
    : string;

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/**
 * The JSON Schema of an `output` option (zod 4's `z.toJSONSchema` for a zod schema): what travels
 * through the workflow. Throws a ConfigurationError naming `where` for anything else.
 */
export function toOutputJsonSchema(output: unknown, where: string): JsonSchemaObject {
  if (isZodSchema(output)) {
    try {
      return z.toJSONSchema(output, { io: 'output' });
    } catch (error) {
      throw new ConfigurationError(
        `${where}: \`output\` cannot be written as JSON Schema (${(error as Error).message}). ` +
          'Use zod types that JSON Schema can express (objects, arrays, strings, numbers, enums, unions).',
        { cause: error },
      );
    }
  }
  if (typeof output === 'object' && output !== null && !Array.isArray(output)) {
    try {
      z.fromJSONSchema(output as never);
    } catch (error) {
      throw new ConfigurationError(
        `${where}: \`output\` is not a JSON Schema zod can read (${(error as Error).message}).`,
        { cause: error },
      );
    }
    return structuredClone(output) as JsonSchemaObject;
  }
  throw new ConfigurationError(
    `${where}: \`output\` must be a zod schema (e.g. z.object({ ... })) or a JSON Schema object.`,
  );
}

/** Checks an `outputRepairs` option: a whole number of at least 0. */
export function checkOutputRepairs(repairs: unknown, where: string): number | undefined {
  if (repairs === undefined) return undefined;
  if (typeof repairs !== 'number' || !Number.isInteger(repairs) || repairs < 0) {
    throw new ConfigurationError(`${where}: \`outputRepairs\` must be a whole number of at least 0.`);
  }
  return repairs;
}

/** The output spec of an agent definition, or undefined when it has no `output`. */
export function toOutputSpec(
  output: OutputSchema | undefined,
  repairs: number | undefined,
  where: string,
): OutputSpec | undefined {
  const checked = checkOutputRepairs(repairs, where);
  if (output === undefined) return undefined;
  return { schema: toOutputJsonSchema(output, where), repairs: checked ?? DEFAULT_OUTPUT_REPAIRS };
}
