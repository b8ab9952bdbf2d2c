import { randomBytes } from 'node:crypto';
import type { InputRequiredResult, RequestStateCodec, ServerContext } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentClient } from '../client/agent-client.ts';
import type { AgentEvent } from '../common/events.ts';
import { ControlRefusedError } from '../errors.ts';
import type { ResumedCall } from './agent-tool-call.ts';
import { authorizationWaitResult } from './authorization-elicitation.ts';
import type { McpServerV2Sdk } from './sdk.ts';

const AUTHORIZATION_KEY = 'authorization';
const APPROVAL_KEY = 'approval';

/** What a call's `requestState` carries: the run and the last event read, and the call it asks a decision on. */
interface RoundState extends ResumedCall {
  /** An approval round: the id of the tool call the client decides. */
  approval?: string;
}

/** The form an approval asks: approve or not, and why not. */
const APPROVAL_FORM = {
  type: 'object' as const,
  properties: {
    approved: { type: 'boolean' as const, title: 'Approve', description: 'Let the call run' },
    reason: { type: 'string' as const, title: 'Reason', description: 'Why not (told to the agent)' },
  },
  required: ['approved'],
};

let codec: RequestStateCodec<RoundState> | undefined;

/**
 * What a run waits on, put before a 2026-07-28 client, which the server cannot send requests to:
 * the call answers `input_required`, with the run and the last event read as its `requestState`
 * (HMAC-sealed with a key of this process, so only this server's own state is taken back). The
 * client answers and calls again with the state: the same call goes on with the same run, from the
 * event after.
 * - An authorization wait asks by URL elicitation: the client opens the URL; the run finds the grant.
 * - A call that needs approval asks by a form elicitation (`approved`, `reason`): the answer
 *   approves or declines the call in the run (a decline, or `approved: false`, declines it).
 * A chat session's turn, and a client without the elicitation mode, are not asked: an authorization
 * wait ends the call with the error naming the URL, an approval waits for a decision made elsewhere.
 */
export class InputRequiredWaits {
  readonly #sdk: McpServerV2Sdk;
  readonly #ctx: ServerContext;
  readonly #agents: AgentClient;
  readonly #sessionCall: boolean;

  constructor(sdk: McpServerV2Sdk, ctx: ServerContext, agents: AgentClient, sessionCall: boolean) {
    this.#sdk = sdk;
    this.#ctx = ctx;
    this.#agents = agents;
    this.#sessionCall = sessionCall;
    codec ??= sdk.createRequestStateCodec<RoundState>({ key: randomBytes(32) });
  }

  /**
   * The run a retried call goes on with (its answer applied: an approval decided), or the answer
   * when the user gave none (the run keeps waiting); nothing for a first call. A state this process
   * did not seal is refused.
   */
  async resumed(): Promise<{ resume?: ResumedCall; answer?: CallToolResult }> {
    const sealed = this.#ctx.mcpReq.requestState<string>();
    if (sealed === undefined) return {};
    let state: RoundState;
    try {
      state = await codec!.verify(sealed, this.#ctx);
    } catch (error) {
      throw new Error(
        `This call's requestState was not issued by this server, or it expired (${(error as Error).message}). ` +
          'Call the tool again without it.',
        { cause: error },
      );
    }
    const resume = { workflowId: state.workflowId, after: state.after };
    const key = state.approval === undefined ? AUTHORIZATION_KEY : APPROVAL_KEY;
    const answer = this.#sdk.inputResponse(this.#ctx.mcpReq.inputResponses, key);
    if (state.approval === undefined) {
      if (answer.kind === 'elicit' && answer.action !== 'accept') {
        return { answer: notGiven(`Authorization was not given (${answer.action})`, state.workflowId) };
      }
      return { resume };
    }
    if (answer.kind !== 'elicit' || answer.action === 'cancel') {
      return { answer: notGiven(`No decision on call ${state.approval} came`, state.workflowId) };
    }
    await this.#decide(
      state.workflowId,
      state.approval,
      answer.action === 'accept' ? answer.content : undefined,
    );
    return { resume };
  }

  /** The call's answer to an event the client must answer; undefined for any other event. */
  async ask(
    workflowId: string,
    event: AgentEvent,
  ): Promise<CallToolResult | InputRequiredResult | undefined> {
    const after = event.cursor ?? String(event.seq);
    if (event.type === 'approval_requested') {
      if (this.#sessionCall || !this.#elicitation('form')) return undefined;
      const callId = String(event.payload.call_id);
      return this.#sdk.inputRequired({
        inputRequests: {
          [APPROVAL_KEY]: this.#sdk.inputRequired.elicit({
            message: `Allow ${String(event.payload.tool)} to run with ${JSON.stringify(event.payload.args ?? {})}?`,
            requestedSchema: APPROVAL_FORM,
          }),
        },
        requestState: await codec!.mint({ workflowId, after, approval: callId }, this.#ctx),
      });
    }
    if (event.type !== 'authorization_required') return undefined;
    if (this.#sessionCall || !this.#elicitation('url')) return authorizationWaitResult(workflowId, event);
    const key = String(event.payload.credential_key);
    return this.#sdk.inputRequired({
      inputRequests: {
        [AUTHORIZATION_KEY]: this.#sdk.inputRequired.elicitUrl({
          message: `The agent needs access to "${key}" to go on: open the link and authorize it.`,
          url: String(event.payload.url),
        }),
      },
      requestState: await codec!.mint({ workflowId, after }, this.#ctx),
    });
  }

  /**
   * Approves the call when the form says `approved: true`, declines it otherwise. A call decided
   * already (the same round retried) stays as decided: the run goes on from there.
   */
  async #decide(
    workflowId: string,
    callId: string,
    form: Record<string, unknown> | undefined,
  ): Promise<void> {
    const run = this.#agents.getHandle(workflowId);
    const reason =
      typeof form?.reason === 'string' && form.reason.trim() ? form.reason : 'Declined by the MCP client.';
    try {
      if (form?.approved === true) await run.approve(callId);
      else await run.reject(callId, reason);
    } catch (error) {
      if (!(error instanceof ControlRefusedError)) throw error;
    }
  }

  /** Whether the client can answer this elicitation mode (an empty `elicitation` means forms). */
  #elicitation(mode: 'form' | 'url'): boolean {
    // 2026-07-28 clients say what they can do in each request's envelope.
    const envelope: Record<string, unknown> = this.#ctx.mcpReq.envelope ?? {};
    const capabilities = envelope[this.#sdk.CLIENT_CAPABILITIES_META_KEY] as
      { elicitation?: { url?: unknown; form?: unknown } } | undefined;
    const elicitation = capabilities?.elicitation;
    if (!elicitation) return false;
    return mode === 'url' ? Boolean(elicitation.url) : Boolean(elicitation.form) || !elicitation.url;
  }
}

function notGiven(what: string, workflowId: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${what}: run ${workflowId} keeps waiting for it.` }],
  };
}
