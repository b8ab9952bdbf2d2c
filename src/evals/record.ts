import type { AgentRunHandle } from '../client/run-handle.ts';
import type { AgentEvent } from '../common/events.ts';
import type { Message } from '../common/messages.ts';
import { ConfigurationError } from '../errors.ts';
import type { MemoryStore } from '../memory/types.ts';
import { startedInput } from './run-input.ts';
import type { EvalCase } from './types.ts';

/** A model step as recorded: the text it wrote and the calls it made (the last step's text is the answer). */
export interface RecordedStep {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  /** A structured run's answer, parsed. */
  object?: unknown;
}

/** A tool call of the recorded run and how it ended (`output`: the result as the event stream shows it, capped). */
export interface RecordedCall {
  tool: string;
  args: Record<string, unknown>;
  callId: string;
  output?: string;
  /** The result was longer than the event stream shows: `output` is its beginning. */
  truncated?: boolean;
  error?: string;
  /** The sub-agent that made the call (absent for the run's own calls). */
  agent?: string;
  depth: number;
}

/** A finished run as a case: its prompt, and what happened, to replay or score again. */
export interface RecordedCase extends EvalCase {
  prompt: string;
  recorded: {
    workflowId: string;
    agent: string;
    /** The run's own model steps, in order. */
    steps: RecordedStep[];
    /** Every tool call, its sub-agents' included, in the order they were made. */
    toolCalls: RecordedCall[];
    output: unknown;
  };
}

/**
 * Turns a finished run into a case: the prompt it was started with (read from its history through
 * the client's data converter, so an encrypted run is decrypted by the configured codec), its model
 * steps (the tool calls of each, and the answer), every tool call with its result (the sub-agents'
 * too) and the final answer, all from the run's events, which never carry a secret. With
 * `memoryStore` (the workers' store), each step also keeps the text the model wrote beside its
 * tool calls, from the stored conversation. The case's `expected` is the recorded answer. Replay it
 * with {@link replayCase}.
 *
 * @example
 * const evalCase = await recordCase(agents.getHandle('agent-support-1234'));
 * await writeFile('refund.case.json', JSON.stringify(evalCase, null, 2));
 */
export async function recordCase(
  handle: AgentRunHandle<unknown>,
  opts: { name?: string; memoryStore?: MemoryStore } = {},
): Promise<RecordedCase> {
  const status = (await handle.workflow.describe()).status.name;
  if (status !== 'COMPLETED') {
    throw new ConfigurationError(
      `recordCase: the run ${handle.workflowId} is ${status.toLowerCase()}; only a run that completed is recorded.`,
    );
  }
  const input = await startedInput(handle.workflow);
  const events: AgentEvent[] = [];
  for await (const event of handle.events()) events.push(event);
  const result = await handle.result();
  const steps = stepsOf(events, result.output);
  if (opts.memoryStore) {
    addStepTexts(steps, await opts.memoryStore.read(input.conversationId ?? handle.workflowId));
  }
  return {
    name: opts.name ?? handle.workflowId,
    prompt: input.prompt,
    expected: result.output,
    ...(input.tenant === undefined ? {} : { tenant: input.tenant }),
    recorded: {
      workflowId: handle.workflowId,
      agent: input.agent,
      steps,
      toolCalls: callsOf(events),
      output: result.output,
    },
  };
}

/** The run's own model steps: each `step_started` opens one; its `tool_called` events are its calls. */
function stepsOf(events: readonly AgentEvent[], output: unknown): RecordedStep[] {
  const steps: RecordedStep[] = [];
  for (const event of events) {
    if (event.payload.depth !== undefined) continue; // a sub-agent's event
    if (event.type === 'step_started') steps.push({});
    if (event.type === 'tool_called') {
      const step = steps.at(-1) ?? (steps.push({}), steps[0]!);
      (step.toolCalls ??= []).push({
        id: String(event.payload.call_id),
        name: String(event.payload.tool),
        args: (event.payload.args as Record<string, unknown> | undefined) ?? {},
      });
    }
  }
  const last = steps.at(-1);
  if (last && !last.toolCalls) {
    if (typeof output === 'string') last.text = output;
    else last.object = output;
  }
  return steps;
}

/**
 * The text each step wrote beside its tool calls, from the stored conversation: its assistant
 * messages with tool calls are the steps with tool calls, in order (a step is matched by its calls' ids).
 */
function addStepTexts(steps: RecordedStep[], conversation: Message[]): void {
  const written = new Map<string, string>();
  for (const message of conversation) {
    if (message.role !== 'assistant' || !message.toolCalls?.length || !message.content) continue;
    written.set(message.toolCalls.map((call) => call.id).join(' '), message.content);
  }
  for (const step of steps) {
    const text = step.toolCalls && written.get(step.toolCalls.map((call) => call.id).join(' '));
    if (text) step.text = text;
  }
}

/** Every tool call with how it ended, matched to its `tool_completed` / `tool_failed` event by run and call id. */
export function callsOf(events: readonly AgentEvent[]): RecordedCall[] {
  const calls: RecordedCall[] = [];
  const byId = new Map<string, RecordedCall>();
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const key = (event: AgentEvent) => `${text(event.payload.sub_run)}/${text(event.payload.call_id)}`;
  for (const event of events) {
    const { tool, args, call_id, agent, depth } = event.payload;
    if (event.type === 'tool_called') {
      const call: RecordedCall = {
        tool: String(tool),
        args: (args as Record<string, unknown> | undefined) ?? {},
        callId: String(call_id),
        ...(typeof agent === 'string' ? { agent } : {}),
        depth: typeof depth === 'number' ? depth : 0,
      };
      calls.push(call);
      byId.set(key(event), call);
    }
    const call = byId.get(key(event));
    if (call && event.type === 'tool_completed') {
      call.output = text(event.payload.output);
      if (event.payload.truncated === true) call.truncated = true;
    }
    if (call && event.type === 'tool_failed') call.error = text(event.payload.error);
  }
  return calls;
}
