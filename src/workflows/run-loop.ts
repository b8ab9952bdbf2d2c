import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.ts';
import type { Message, ToolCall, Usage } from '../common/messages.ts';
import type { AgentRunInput, ModelStep, ResolvedRun, StopReason } from '../common/run.ts';
import type { EventLog } from './event-log.ts';
import { quickActivities } from './quick-activities.ts';

const { appendMessages } = quickActivities;

/**
 * The loop of one turn (DESIGN.md section 3): call the model and the tools it asks for until it
 * answers without tool calls or `maxIterations` is reached. Tool calls of a step run in parallel;
 * their results are stored in call order, so every call is followed by its result.
 */
export class RunLoop {
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  readonly stepUsage: Usage[] = [];
  /** The latest plan the model wrote with `plan_task`. */
  taskPlan: unknown;
  readonly #modelActivities: ReturnType<typeof proxyActivities<AgentActivities>>;
  readonly #toolActivities: ReturnType<typeof proxyActivities<AgentActivities>>;
  readonly input: AgentRunInput;
  readonly plan: ResolvedRun;
  readonly conversationId: string;
  readonly events: EventLog;
  /** Position of the next message in the stored conversation. */
  #seq: number;
  /** The tools the model sees; grows when `tool_search` finds more. */
  readonly #tools: string[];

  /** Added to the payload of every event: a chat turn's `turn_id`, a deep run's `phase`. */
  readonly #tags: Record<string, unknown>;

  constructor(
    input: AgentRunInput,
    plan: ResolvedRun,
    conversationId: string,
    events: EventLog,
    tags: Record<string, unknown> = {},
  ) {
    this.#tags = tags;
    this.input = input;
    this.plan = plan;
    this.conversationId = conversationId;
    this.events = events;
    this.#seq = plan.messageCount;
    this.#tools = [...plan.tools];
    const { timeouts } = plan;
    this.#modelActivities = proxyActivities<AgentActivities>({
      startToCloseTimeout: timeouts.modelStartToCloseMs,
      heartbeatTimeout: timeouts.modelHeartbeatMs,
      retry: { maximumAttempts: timeouts.modelMaxAttempts, initialInterval: '1 second' },
    });
    this.#toolActivities = proxyActivities<AgentActivities>({
      startToCloseTimeout: timeouts.toolStartToCloseMs,
      retry: { maximumAttempts: timeouts.toolMaxAttempts, initialInterval: '1 second' },
    });
  }

  /** Position of the next message: where the next turn of a session continues. */
  get seq(): number {
    return this.#seq;
  }

  /** Events carry the turn's tags, so a reader can follow its own turn or phase. */
  #emit(type: Parameters<EventLog['emit']>[0], message: string, payload: Record<string, unknown> = {}): void {
    this.events.emit(type, message, { ...payload, ...this.#tags });
  }

  async run(): Promise<{ output: string; stopReason: StopReason; iterations: number }> {
    for (let iteration = 1; ; iteration++) {
      this.#emit('step_started', `Step ${iteration} of at most ${this.plan.maxIterations}`, {
        iteration,
      });
      const step = await this.#callModel();
      if (step.toolCalls.length === 0)
        return { output: step.text, stopReason: 'completed', iterations: iteration };
      if (iteration >= this.plan.maxIterations) {
        await this.#refuse(step.toolCalls);
        return { output: step.text, stopReason: 'max_iterations', iterations: iteration };
      }
      const first = this.#seq;
      this.#seq += step.toolCalls.length;
      await Promise.all(step.toolCalls.map((call, i) => this.#runTool(call, first + i)));
    }
  }

  async #callModel(): Promise<ModelStep> {
    const step = await this.#modelActivities.callModel({
      agent: this.input.agent,
      model: this.plan.model,
      conversationId: this.conversationId,
      seq: this.#seq,
      tools: this.#tools,
      ...(this.input.tenant !== undefined ? { tenant: this.input.tenant } : {}),
    });
    this.#seq += 1;
    if (step.reasoning) {
      this.#emit('reasoning_started', 'The model is reasoning');
      this.#emit('reasoning_completed', 'The model finished reasoning', { reasoning: step.reasoning });
    }
    this.stepUsage.push(step.usage ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0 });
    if (step.usage) {
      this.usage.input_tokens += step.usage.input_tokens;
      this.usage.output_tokens += step.usage.output_tokens;
      this.usage.total_tokens += step.usage.total_tokens;
    }
    return step;
  }

  async #runTool(call: ToolCall, seq: number): Promise<void> {
    const ids = { tool: call.name, call_id: call.id };
    this.#emit('tool_called', `Calling ${call.name}`, { ...ids, args: call.args });
    try {
      const outcome = await this.#toolActivities.invokeTool({
        agent: this.input.agent,
        conversationId: this.conversationId,
        seq,
        call,
        tenant: this.input.tenant,
        ...(this.plan.used_skill_tools.length ? { skillTools: this.plan.used_skill_tools } : {}),
        model: this.plan.model,
      });
      for (const name of outcome.loadTools ?? []) if (!this.#tools.includes(name)) this.#tools.push(name);
      if (call.name === 'plan_task' && outcome.metadata?.plan) this.taskPlan = outcome.metadata.plan;
      const size = outcome.truncated
        ? `${outcome.chars} characters, truncated`
        : `${outcome.chars} characters`;
      this.#emit('tool_completed', `${call.name} completed (${size})`, {
        ...ids,
        output: outcome.preview,
        truncated: outcome.truncated,
        ...(outcome.metadata ? { metadata: outcome.metadata } : {}),
      });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const cause = error.cause;
      const message = cause?.message ?? error.message;
      const errorType = cause instanceof ApplicationFailure ? (cause.type ?? 'Error') : 'Error';
      await appendMessages({
        agent: this.input.agent,
        conversationId: this.conversationId,
        seq,
        messages: [toolErrorMessage(call, `Error (${errorType}): ${message}`)],
      });
      this.#emit('tool_failed', `${call.name} failed: ${message}`, {
        ...ids,
        error: message,
        error_type: errorType,
      });
    }
  }

  /** Answers the calls the run will not make, so the stored conversation stays validly paired. */
  async #refuse(calls: ToolCall[]): Promise<void> {
    const note = `Not run: the agent reached its limit of ${this.plan.maxIterations} iterations.`;
    await appendMessages({
      agent: this.input.agent,
      conversationId: this.conversationId,
      seq: this.#seq,
      messages: calls.map((call) => toolErrorMessage(call, note)),
    });
    this.#seq += calls.length;
  }
}

function toolErrorMessage(call: ToolCall, content: string): Message {
  return { role: 'tool', toolCallId: call.id, toolName: call.name, content, isError: true };
}
