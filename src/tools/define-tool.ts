import type { z } from 'zod';
import type { CredentialRecord, CredentialStore } from '../credentials/types.ts';
import {
  assertValidTool,
  BaseConnectorTool,
  type NeedsApproval,
  type ToolContext,
  type ToolOutput,
} from './connector-base.ts';

/** What a {@link defineTool} tool's `run` is given: the call's context, and its credential on request. */
export interface DefinedToolContext extends ToolContext {
  /**
   * The stored record under the tool's `credentialKey` (default: its name) for the run's tenant,
   * read inside the activity; throws `CredentialError` when it is missing or expired.
   */
  getCredential(): Promise<CredentialRecord>;
}

/** A tool written as an object, without a class: see {@link defineTool}. */
export interface ToolDefinition<P extends z.ZodType<Record<string, unknown>>> {
  /** 1-64 letters, digits, `_` or `-`: the name the model calls. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** A zod object; the model's arguments are parsed by it before `run`, and its JSON Schema is what the model sees. */
  parameters: P;
  /** Runs one call with the parsed, typed arguments. */
  run(context: DefinedToolContext, args: z.infer<P>): Promise<ToolOutput> | ToolOutput;
  /** The credential record `context.getCredential()` reads. Default: the tool's name. */
  credentialKey?: string;
  /** A store of the tool's own, instead of the agent's `credentialStore`. */
  credentialStore?: CredentialStore;
  /** `true`: every call waits for a person's approval; a function decides per call (on the worker). */
  needsApproval?: NeedsApproval;
  /** Calls finish in milliseconds without network I/O: they run without a round trip of their own. */
  fast?: boolean;
}

class DefinedTool<P extends z.ZodType<Record<string, unknown>>> extends BaseConnectorTool<P> {
  readonly name: string;
  readonly description: string;
  readonly parameters: P;
  readonly #definition: ToolDefinition<P>;

  constructor(definition: ToolDefinition<P>) {
    super({
      credentialKey: definition.credentialKey,
      credentialStore: definition.credentialStore,
      needsApproval: definition.needsApproval,
      fast: definition.fast,
    });
    this.name = definition.name;
    this.description = definition.description;
    this.parameters = definition.parameters;
    this.#definition = definition;
  }

  async run(context: ToolContext, args: z.infer<P>): Promise<ToolOutput> {
    return this.#definition.run({ ...context, getCredential: () => this.getCredential(context) }, args);
  }
}

/**
 * A tool from an object, in the shape of the AI SDK's `tool()`: `run` receives the arguments parsed
 * by `parameters`, typed. A definition no model could call (bad name, no description, parameters
 * that are not a zod object) is refused here, with a `ConfigurationError`.
 *
 * @example
 * const status = defineTool({
 *   name: 'service_status',
 *   description: 'Current status of an internal service',
 *   parameters: z.object({ service: z.string() }),
 *   credentialKey: 'status_api',
 *   async run(context, { service }) {
 *     const { token } = await context.getCredential(); // read inside the activity
 *     ...
 *   },
 * });
 * new Agent({ llm, tools: [status] });
 */
export function defineTool<P extends z.ZodType<Record<string, unknown>>>(
  definition: ToolDefinition<P>,
): BaseConnectorTool<P> {
  const tool = new DefinedTool(definition);
  assertValidTool(tool);
  return tool;
}
