import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.ts';
import type { Message, ToolCall, Usage } from '../common/messages.ts';
import type { AgentResult, AgentRunInput, ModelStep, ResolvedRun, StopReason } from '../common/run.ts';
import { EventLog } from './event-log.ts';

/** Quick store operations: setting up the run, recording results the workflow decided on. */
const { resolveRun, appendMessages } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
});

/**
 * One agent run (DESIGN.md section 3): resolve the run's configuration, then call the model and the
 * tools it asks for until it answers without tool calls or `maxIterations` is reached. The
 * conversation lives in the memory store; history holds only small deltas.
 */
export async function agentRun(input: AgentRunInput): Promise<AgentResult> {
  const events = new EventLog();
  const { workflowId, runId } = workflowInfo();
  const conversationId = input.conversationId ?? workflowId;
  events.emit('run_started', `Run started: agent "${input.agent}"`, { agent: input.agent });

  const plan = await resolveRun({
    agent: input.agent,
    conversationId,
    prompt: input.prompt,
    maxIterations: input.maxIterations,
    skills: input.skills,
    model: input.model,
  });
  const loop = new RunLoop(input, plan, conversationId, events);
  const { output, stopReason, iterations } = await loop.run();

  events.emit('run_completed', 'Run completed', {
    output,
    stop_reason: stopReason,
    iterations,
    used_skills: plan.used_skills,
    used_skill_tools: plan.used_skill_tools,
  });
  events.finish();
  await condition(allHandlersFinished);
  return {
    output,
    metadata: {
      used_skills: plan.used_skills,
      used_skill_tools: plan.used_skill_tools,
      unavailable_skill_tools: plan.unavailable_skill_tools,
      iterations,
      stop_reason: stopReason,
      workflow_id: workflowId,
      run_id: runId,
      model: plan.model,
      usage: loop.usage,
      step_usage: loop.stepUsage,
    },
  };
}

class RunLoop {
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  readonly stepUsage: Usage[] = [];
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

  constructor(input: AgentRunInput, plan: ResolvedRun, conversationId: string, events: EventLog) {
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

  async run(): Promise<{ output: string; stopReason: StopReason; iterations: number }> {
    for (let iteration = 1; ; iteration++) {
      this.events.emit('step_started', `Step ${iteration} of at most ${this.plan.maxIterations}`, {
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
    });
    this.#seq += 1;
    if (step.reasoning) {
      this.events.emit('reasoning_started', 'The model is reasoning');
      this.events.emit('reasoning_completed', 'The model finished reasoning', { reasoning: step.reasoning });
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
    this.events.emit('tool_called', `Calling ${call.name}`, { ...ids, args: call.args });
    try {
      const outcome = await this.#toolActivities.invokeTool({
        agent: this.input.agent,
        conversationId: this.conversationId,
        seq,
        call,
        tenant: this.input.tenant,
        ...(this.plan.used_skill_tools.length ? { skillTools: this.plan.used_skill_tools } : {}),
      });
      for (const name of outcome.loadTools ?? []) if (!this.#tools.includes(name)) this.#tools.push(name);
      const size = outcome.truncated
        ? `${outcome.chars} characters, truncated`
        : `${outcome.chars} characters`;
      this.events.emit('tool_completed', `${call.name} completed (${size})`, {
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
      this.events.emit('tool_failed', `${call.name} failed: ${message}`, {
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
