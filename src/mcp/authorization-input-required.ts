import { randomBytes } from 'node:crypto';
import type { InputRequiredResult, RequestStateCodec, ServerContext } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentEvent } from '../common/events.ts';
import type { ResumedCall } from './agent-tool-call.ts';
import { authorizationWaitResult } from './authorization-elicitation.ts';
import type { McpServerV2Sdk } from './sdk.ts';

const INPUT_KEY = 'authorization';
let codec: RequestStateCodec<ResumedCall> | undefined;

/**
 * A run's authorization wait for a 2026-07-28 client, which the server cannot send requests to:
 * the call answers `input_required` with a URL elicitation and, as its `requestState`, the run and
 * the last event read (HMAC-sealed with a key of this process, so only this server's own state is
 * taken back). The client opens the URL and calls again with the state: the same call goes on
 * with the same run, from the event after. A client without URL elicitation, and a chat session's
 * turn, get the error naming the URL instead.
 */
export class InputRequiredAuthorization {
  readonly #sdk: McpServerV2Sdk;
  readonly #ctx: ServerContext;
  readonly #sessionCall: boolean;

  constructor(sdk: McpServerV2Sdk, ctx: ServerContext, sessionCall: boolean) {
    this.#sdk = sdk;
    this.#ctx = ctx;
    this.#sessionCall = sessionCall;
    codec ??= sdk.createRequestStateCodec<ResumedCall>({ key: randomBytes(32) });
  }

  /**
   * The run a retried call goes on with, or the answer when the user declined (the run keeps
   * waiting); nothing for a first call. A state this process did not seal is refused.
   */
  async resumed(): Promise<{ resume?: ResumedCall; answer?: CallToolResult }> {
    const state = this.#ctx.mcpReq.requestState<string>();
    if (state === undefined) return {};
    let resume: ResumedCall;
    try {
      resume = await codec!.verify(state, this.#ctx);
    } catch (error) {
      throw new Error(
        `This call's requestState was not issued by this server, or it expired (${(error as Error).message}). ` +
          'Call the tool again without it.',
        { cause: error },
      );
    }
    const answer = this.#sdk.inputResponse(this.#ctx.mcpReq.inputResponses, INPUT_KEY);
    if (answer.kind === 'elicit' && answer.action !== 'accept') {
      return {
        answer: {
          isError: true,
          content: [
            {
              type: 'text',
              text: `Authorization was not given (${answer.action}): run ${resume.workflowId} keeps waiting for it.`,
            },
          ],
        },
      };
    }
    return { resume };
  }

  /** The call's answer to an `authorization_required` event; undefined for any other event. */
  async ask(
    workflowId: string,
    event: AgentEvent,
  ): Promise<CallToolResult | InputRequiredResult | undefined> {
    if (event.type !== 'authorization_required') return undefined;
    if (this.#sessionCall || !this.#urlElicitation()) return authorizationWaitResult(workflowId, event);
    const key = String(event.payload.credential_key);
    const after = event.cursor ?? String(event.seq);
    return this.#sdk.inputRequired({
      inputRequests: {
        [INPUT_KEY]: this.#sdk.inputRequired.elicitUrl({
          message: `The agent needs access to "${key}" to go on: open the link and authorize it.`,
          url: String(event.payload.url),
        }),
      },
      requestState: await codec!.mint({ workflowId, after }, this.#ctx),
    });
  }

  #urlElicitation(): boolean {
    // 2026-07-28 clients say what they can do in each request's envelope.
    const envelope: Record<string, unknown> = this.#ctx.mcpReq.envelope ?? {};
    const capabilities = envelope[this.#sdk.CLIENT_CAPABILITIES_META_KEY] as
      { elicitation?: { url?: unknown } } | undefined;
    return Boolean(capabilities?.elicitation?.url);
  }
}
