/**
 * Workflow interceptors (bundled with the agent workflows; deterministic code only) that trace each
 * run, and each turn of a chat session, as an `invoke_agent <agent>` span. They run inside Temporal's
 * OpenTelemetry workflow interceptors, so the span is a child of `RunWorkflow` (or `HandleUpdate`)
 * and the parent of the `StartActivity` spans of its model steps and tool calls. Spans made in the
 * sandbox get the same ids when the workflow replays and are exported through a sink that Temporal
 * does not call during replay: a run replayed on another worker exports each span once.
 */
import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import {
  ContinueAsNew,
  workflowInfo,
  type Next,
  type UpdateInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
} from '@temporalio/workflow';
import { SEND_UPDATE } from '../common/chat.ts';
import type { AgentResult } from '../common/run.ts';
import { GEN_AI, TENANT_ATTRIBUTE, TRACER_NAME } from './gen-ai.ts';

const RUN_TYPES: readonly string[] = ['agentRun', 'deepAgentRun'];

interface RunFields {
  agent: string;
  tenant?: string;
  model?: string;
  sessionId?: string;
  conversationId?: string;
}

class InvokeAgentSpans implements WorkflowInboundCallsInterceptor {
  /** The chat session's input, kept for the spans of its turns. */
  #session: RunFields | undefined;

  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
    const { workflowType, workflowId } = workflowInfo();
    const fields = input.args[0] as RunFields | undefined;
    if (workflowType === 'chatSession') this.#session = fields;
    if (!RUN_TYPES.includes(workflowType) || typeof fields?.agent !== 'string') return next(input);
    return invokeAgent(fields, fields.conversationId ?? workflowId, () => next(input));
  }

  async handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>) {
    const session = this.#session;
    if (input.name !== SEND_UPDATE || typeof session?.agent !== 'string') return next(input);
    return invokeAgent(session, session.sessionId ?? workflowInfo().workflowId, () => next(input));
  }
}

function invokeAgent(
  fields: RunFields,
  conversationId: string,
  run: () => Promise<unknown>,
): Promise<unknown> {
  const attributes: Attributes = {
    [GEN_AI.operation]: 'invoke_agent',
    [GEN_AI.agentName]: fields.agent,
    [GEN_AI.conversationId]: conversationId,
    ...(fields.model === undefined ? {} : { [GEN_AI.requestModel]: fields.model }),
    ...(fields.tenant === undefined ? {} : { [TENANT_ATTRIBUTE]: fields.tenant }),
  };
  const tracer = trace.getTracer(TRACER_NAME);
  return tracer.startActiveSpan(
    `invoke_agent ${fields.agent}`,
    { kind: SpanKind.INTERNAL, attributes },
    async (span) => {
      try {
        const result = await run();
        recordResult(span, result);
        return result;
      } catch (error) {
        if (!(error instanceof ContinueAsNew)) {
          span.setAttribute(GEN_AI.errorType, error instanceof Error ? error.name : 'Error');
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: error instanceof Error ? error.message : String(error),
          });
        }
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Model and token totals of a finished run (never its output). */
function recordResult(span: Span, result: unknown): void {
  const metadata = (result as Partial<AgentResult> | undefined)?.metadata;
  if (!metadata) return;
  if (typeof metadata.model === 'string') span.setAttribute(GEN_AI.requestModel, metadata.model);
  if (metadata.usage) {
    span.setAttribute(GEN_AI.inputTokens, metadata.usage.input_tokens);
    span.setAttribute(GEN_AI.outputTokens, metadata.usage.output_tokens);
  }
}

export const interceptors = (): WorkflowInterceptors => ({ inbound: [new InvokeAgentSpans()] });
