import { Context } from '@temporalio/activity';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { z } from 'zod';
import type { ToolSchema } from '../common/messages.ts';
import { CredentialError, ToolInputError, UpstreamError } from '../errors.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../tools/connector-base.ts';
import type { McpAgentTools, McpToolEntry } from './agent-tools.ts';
import { toToolOutput } from './call-result.ts';
import { toMcpFailure } from './errors.ts';
import { isStdioServer } from './options.ts';
import { sdkFailure } from './sdk-errors.ts';
import { loadMcpClientSdk, type McpClientSdk } from './sdk.ts';

const validators = new WeakMap<Tool, JsonSchemaValidator<unknown>>();
let ajv: AjvJsonSchemaValidator | undefined;

/**
 * Calls of tools that are neither read-only nor idempotent that this worker has sent, by run and call
 * id: a later attempt of the same call (after a timeout) is refused rather than sent again.
 */
const sentCalls = new Set<string>();
const SENT_MARK = 'mcp_call_sent';

/**
 * One MCP tool, callable from `invokeTool` like any connector: the arguments are checked against
 * the tool's JSON Schema, the call goes through the worker's pooled connection, and the answer
 * becomes text plus metadata ({@link toToolOutput}).
 */
export class McpTool extends BaseConnectorTool {
  readonly name: string;
  readonly description: string;
  /** Any object: the real check is the server's JSON Schema, in {@link McpTool.run}. */
  readonly parameters = z.record(z.string(), z.unknown());
  readonly entry: McpToolEntry;
  readonly #source: McpAgentTools;

  constructor(entry: McpToolEntry, source: McpAgentTools) {
    super();
    this.entry = entry;
    this.name = entry.name;
    this.description = entry.schema.function.description;
    this.#source = source;
  }

  override schema(): ToolSchema {
    return this.entry.schema;
  }

  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const { entry } = this;
    checkArguments(await loadMcpClientSdk(), entry, args);
    const callKey = `${context.workflowId}/${context.runId}/${context.callId}`;
    if (!entry.retrySafe && (sentCalls.has(callKey) || sentBefore())) {
      throw new UpstreamError(
        `An earlier attempt of this call to ${entry.name} may have reached MCP server "${entry.server}" ` +
          'and its answer was lost. It is not repeated because the tool is neither read-only nor idempotent; ' +
          'check its effect before calling it again.',
      );
    }
    const asker = { tenant: context.tenant, secrets: context.secrets, signal: context.signal };
    const connection = await this.#source.connection(entry.server, asker);
    const config = this.#source.servers.get(entry.server)!;
    const credentialKey = !isStdioServer(config) ? config.credentialKey : undefined;
    const failure = (retrySafe: boolean, error: unknown) =>
      toMcpFailure(error, {
        connection,
        action: `calling ${entry.tool.name}`,
        retrySafe,
        ...(credentialKey ? { credentialKey } : {}),
      });
    const stdio = isStdioServer(config);
    // Connecting sends nothing the tool acts on, so a failure here may always be retried. A stdio
    // server found dead is started again, once per call.
    const connect = () => connection.client();
    const client = await connect()
      .catch(async (error: unknown) => {
        if (!stdio) throw error;
        await connection.reset();
        return connect();
      })
      .catch((error: unknown) => {
        throw failure(true, error);
      });
    const mark = entry.retrySafe ? undefined : { [SENT_MARK]: context.callId };
    if (mark) {
      sentCalls.add(callKey);
      context.heartbeat(mark);
    }
    const call = (to: typeof client) =>
      connection.use(() =>
        to.callTool(
          { name: entry.tool.name, arguments: args },
          {
            signal: context.signal,
            timeout: this.#source.callTimeoutMs,
            resetTimeoutOnProgress: true,
            onprogress: () => context.heartbeat(mark),
          },
        ),
      );
    let answered = false;
    try {
      let result;
      try {
        result = await call(client);
      } catch (error) {
        // A stdio server that died under a read-only or idempotent call: started again and asked once more.
        if (!stdio || !entry.retrySafe || context.signal.aborted || !isConnectionLost(error)) throw error;
        await connection.reset();
        result = await call(await connect());
      }
      answered = true;
      return toToolOutput(entry.server, entry.tool.name, result);
    } catch (error) {
      if (context.signal.aborted) throw error;
      const failed = failure(entry.retrySafe, error);
      // A 401 proves the call did nothing: it may be repeated with a refreshed token.
      if (failed instanceof CredentialError && failed.rejected) sentCalls.delete(callKey);
      throw failed;
    } finally {
      if (answered) sentCalls.delete(callKey);
    }
  }
}

/** The connection closed under the request (the process died): no answer came. */
function isConnectionLost(error: unknown): boolean {
  const failure = sdkFailure(error);
  return failure.kind === 'lost' && failure.closed;
}

/** Checks arguments against the tool's input schema before anything is sent; a mismatch goes back to the model. */
function checkArguments(sdk: McpClientSdk, entry: McpToolEntry, args: Record<string, unknown>): void {
  let validate = validators.get(entry.tool);
  if (!validate) {
    ajv ??= new sdk.AjvJsonSchemaValidator();
    validate = ajv.getValidator(entry.tool.inputSchema);
    validators.set(entry.tool, validate);
  }
  const result = validate(args);
  if (!result.valid) {
    throw new ToolInputError(
      `Invalid arguments for ${entry.name}: ${result.errorMessage ?? 'they do not match its input schema'}.`,
    );
  }
}

/** Whether an earlier attempt of this activity recorded (by heartbeat) that it sent the call. */
function sentBefore(): boolean {
  try {
    const { attempt } = Context.current().info;
    const heartbeatDetails: unknown = Context.current().info.heartbeatDetails;
    return (
      attempt > 1 &&
      typeof heartbeatDetails === 'object' &&
      heartbeatDetails !== null &&
      SENT_MARK in heartbeatDetails
    );
  } catch {
    return false; // not inside an activity
  }
}
