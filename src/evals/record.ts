import type { temporal } from '@temporalio/proto';
import type { AgentRunHandle } from '../client/run-handle.ts';
import type { AgentEvent } from '../common/events.ts';
import type { Message } from '../common/messages.ts';
import type { AgentRunInput } from '../common/run.ts';
import { ConfigurationError } from '../errors.ts';
import type { MemoryStore } from '../memory/types.ts';
import { startedWorkflow } from './run-input.ts';
import { sessionTurns } from './session-turns.ts';
import type { EvalCase } from './types.ts';

/** A model step as recorded: the text it wrote and the calls it made (the last step's text is the answer). */
export interface RecordedStep {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  /** A structured run's answer, parsed. */
  object?: unknown;
  /** The chat turn the step belongs to (from 1; a session's case only). */
  turn?: number;
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
  /** The chat turn the call was made in (from 1; a session's case only). */
  turn?: number;
  /**
   * The model step of the run (or of the chat turn) that made the call, from 1; a sub-agent's call
   * has the step of its parent's call that started the sub-agent.
   */
  step: number;
}

/** One turn of a recorded chat session: what the user wrote and what the agent answered. */
export interface RecordedTurn {
  prompt: string;
  output: unknown;
  /** Why the turn failed, when it did. */
  error?: string;
}

/** A finished run or chat session as a case: its prompt(s), and what happened, to replay or score again. */
export interface RecordedCase extends EvalCase {
  /** A run's prompt, or a session's user messages, one a turn. */
  prompt: string | string[];
  recorded: {
    workflowId: string;
    agent: string;
    /** The run's own model steps (a session's: every turn's, each with its `turn`), in order. */
    steps: RecordedStep[];
    /** Every tool call, its sub-agents' included, in the order they were made. */
    toolCalls: RecordedCall[];
    /** The answer (a session's: its last turn's). */
    output: unknown;
    /** A chat session's turns, in order. */
    turns?: RecordedTurn[];
    /**
     * The model steps of each sub-agent the run called, by agent name (the calls of all its runs,
     * in the order the events tell them), to play back with `recordedModel(case, { agent })`.
     */
    subAgents?: Record<string, RecordedStep[]>;
  };
}

/**
 * Turns a finished run, or a chat session that ended or waits for its next message, into a case.
 * A run: the prompt it was started with (read from its history through the client's data
 * converter, so an encrypted run is decrypted by the configured codec), its model steps (the tool
 * calls of each, and the answer), every tool call with its result (the sub-agents' too) and the
 * final answer, all from the run's events, which never carry a secret. A session (its workflow,
 * `chat-<sessionId>`, across the runs it continued as new into): the user's messages as the
 * case's turns, and per turn its model steps, tool calls and answer. The steps of the sub-agents
 * the run called are kept by agent. With `memoryStore` (the workers' store), each step also keeps
 * the text the model wrote beside its tool calls, from the stored conversation. The case's
 * `expected` is the recorded (last) answer. Replay it with {@link replayCase}.
 *
 * @example
 * const evalCase = await recordCase(agents.getHandle('agent-support-1234'));
 * await writeFile('refund.case.json', JSON.stringify(evalCase, null, 2));
 */
export async function recordCase(
  handle: AgentRunHandle<unknown>,
  opts: { name?: string; memoryStore?: MemoryStore } = {},
): Promise<RecordedCase> {
  const started = await startedWorkflow(handle.workflow);
  const status = (await handle.workflow.describe()).status.name;
  const idle = started.kind === 'chat' && status === 'RUNNING';
  if (status !== 'COMPLETED' && !idle) {
    throw new ConfigurationError(
      `recordCase: the ${started.kind === 'chat' ? 'chat session' : 'run'} ${handle.workflowId} is ${status.toLowerCase()}; only a run that completed, or a session that ended or waits for a message, is recorded.`,
    );
  }
  const read =
    started.kind === 'chat'
      ? await sessionRead(handle, started.input.sessionId, started.history)
      : await runRead(handle, started.input);
  const steps = stepsOf(read.events);
  if (opts.memoryStore) addStepTexts(steps, await opts.memoryStore.read(read.conversationId));
  return {
    name: opts.name ?? handle.workflowId,
    prompt: read.prompt,
    expected: read.output,
    ...(started.input.tenant === undefined ? {} : { tenant: started.input.tenant }),
    recorded: {
      workflowId: handle.workflowId,
      agent: started.input.agent,
      steps,
      toolCalls: callsOf(read.events),
      output: read.output,
      ...(read.turns ? { turns: read.turns } : {}),
      ...subAgentSteps(read.events),
    },
  };
}

/** What a case is made of: the prompt(s), the events (the sub-agents' woven in) and the answer. */
interface Read {
  prompt: string | string[];
  events: AgentEvent[];
  output: unknown;
  /** Where the workers' store keeps the conversation. */
  conversationId: string;
  turns?: RecordedTurn[];
}

/** A finished run: its events and its result. */
async function runRead(handle: AgentRunHandle<unknown>, input: AgentRunInput): Promise<Read> {
  const events: AgentEvent[] = [];
  for await (const event of handle.events()) events.push(event);
  const { output } = await handle.result();
  return { prompt: input.prompt, events, output, conversationId: input.conversationId ?? handle.workflowId };
}

/** A chat session: its turns, their events one turn after the other, and the last turn's answer. */
async function sessionRead(
  handle: AgentRunHandle<unknown>,
  sessionId: string,
  history: temporal.api.history.v1.IHistory,
): Promise<Read> {
  const turns = await sessionTurns(handle.workflow, history);
  if (!turns.length) throw new ConfigurationError(`The chat session ${handle.workflowId} has no turns.`);
  return {
    prompt: turns.map((turn) => turn.prompt),
    events: turns.flatMap((turn) => turn.events),
    output: turns.at(-1)!.output,
    conversationId: sessionId,
    turns: turns.map(({ prompt, output, error }) => ({
      prompt,
      output,
      ...(error === undefined ? {} : { error }),
    })),
  };
}

/** The model steps of each sub-agent in the events, by agent name (absent when there are none). */
function subAgentSteps(events: readonly AgentEvent[]): { subAgents?: Record<string, RecordedStep[]> } {
  const agents = new Set<string>();
  for (const { payload } of events) {
    if (payload.depth !== undefined && typeof payload.agent === 'string') agents.add(payload.agent);
  }
  if (!agents.size) return {};
  return { subAgents: Object.fromEntries([...agents].map((agent) => [agent, stepsOf(events, agent)])) };
}

/**
 * The model steps of the run's own (a session's: every turn's, each with its `turn`), or with
 * `agent` of that sub-agent's runs: each `step_started` opens one, its `tool_called` events are its
 * calls, and the `run_completed` of its run gives the last step its answer.
 */
function stepsOf(events: readonly AgentEvent[], agent?: string): RecordedStep[] {
  const steps: RecordedStep[] = [];
  /** The step in flight of each run: a turn's, or a sub-agent run's by its workflow id. */
  const current = new Map<string, RecordedStep>();
  const turnOf = turns();
  for (const event of events) {
    const turn = turnOf(event);
    const own = event.payload.depth === undefined;
    if (agent === undefined ? !own : event.payload.agent !== agent) continue;
    const run = own ? `turn ${turn ?? 0}` : String(event.payload.sub_run);
    const open = () => {
      const step: RecordedStep = own && turn !== undefined ? { turn } : {};
      steps.push(step);
      current.set(run, step);
      return step;
    };
    if (event.type === 'step_started') open();
    if (event.type === 'tool_called') {
      ((current.get(run) ?? open()).toolCalls ??= []).push({
        id: String(event.payload.call_id),
        name: String(event.payload.tool),
        args: (event.payload.args as Record<string, unknown> | undefined) ?? {},
      });
    }
    const step = current.get(run);
    const { output, phase } = event.payload;
    if (event.type === 'run_completed' && phase === undefined && step && !step.toolCalls) {
      if (typeof output === 'string') step.text = output;
      else if (output !== undefined) step.object = output;
    }
  }
  return steps;
}

/**
 * Numbers the chat turns of a session's events (from 1, by their `turn_id`, in order): what it
 * gives for an event is the turn it belongs to (a sub-agent's event: the turn that called it), or
 * `undefined` for a run's events, which have no turns.
 */
export function turns(): (event: AgentEvent) => number | undefined {
  const numbers = new Map<string, number>();
  let current: number | undefined;
  return (event) => {
    const id = event.payload.turn_id;
    if (event.payload.depth === undefined && typeof id === 'string') {
      if (!numbers.has(id)) numbers.set(id, numbers.size + 1);
      current = numbers.get(id);
    }
    return current;
  };
}

/** How many model steps the run's own made, per chat turn (0 for a run, which has no turns). */
export function modelStepsPerTurn(events: readonly AgentEvent[]): Map<number, number> {
  const counts = new Map<number, number>();
  const turnOf = turns();
  for (const event of events) {
    const turn = turnOf(event) ?? 0;
    if (event.type === 'step_started' && event.payload.depth === undefined) {
      counts.set(turn, (counts.get(turn) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * The text each step wrote beside its tool calls, from the stored conversation: its assistant
 * messages with tool calls are the steps with tool calls, in order (a step is matched by its calls'
 * ids, at or after the message the step before matched, so ids used again in a later turn match there).
 */
function addStepTexts(steps: RecordedStep[], conversation: Message[]): void {
  const ids = (calls: Array<{ id: string }>) => calls.map((call) => call.id).join(' ');
  const written: Array<{ ids: string; content: string }> = [];
  for (const message of conversation) {
    if (message.role !== 'assistant' || !message.toolCalls?.length) continue;
    written.push({ ids: ids(message.toolCalls), content: message.content });
  }
  let at = 0;
  for (const step of steps) {
    if (!step.toolCalls) continue;
    const found = written.findIndex((message, i) => i >= at && message.ids === ids(step.toolCalls!));
    if (found < 0) continue;
    at = found + 1;
    if (written[found]!.content) step.text = written[found]!.content;
  }
}

/**
 * Every tool call with how it ended, matched to its `tool_completed` / `tool_failed` event by turn,
 * run and call id, with the model step (and chat turn) it was made in.
 */
export function callsOf(events: readonly AgentEvent[]): RecordedCall[] {
  const calls: RecordedCall[] = [];
  const byId = new Map<string, RecordedCall>();
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const turnOf = turns();
  let step = 0;
  let stepTurn: number | undefined;
  for (const event of events) {
    const turn = turnOf(event);
    if (turn !== stepTurn) [step, stepTurn] = [0, turn];
    const { tool, args, call_id, agent, depth } = event.payload;
    if (event.type === 'step_started' && depth === undefined) step += 1;
    const key = `${turn ?? 0}/${text(event.payload.sub_run)}/${text(call_id)}`;
    if (event.type === 'tool_called') {
      const call: RecordedCall = {
        tool: String(tool),
        args: (args as Record<string, unknown> | undefined) ?? {},
        callId: String(call_id),
        ...(typeof agent === 'string' ? { agent } : {}),
        depth: typeof depth === 'number' ? depth : 0,
        ...(turn === undefined ? {} : { turn }),
        step: Math.max(step, 1),
      };
      calls.push(call);
      byId.set(key, call);
    }
    const call = byId.get(key);
    if (call && event.type === 'tool_completed') {
      call.output = text(event.payload.output);
      if (event.payload.truncated === true) call.truncated = true;
    }
    if (call && event.type === 'tool_failed') call.error = text(event.payload.error);
  }
  return calls;
}
