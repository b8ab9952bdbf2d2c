import type { AgentChatSession } from '../client/chat-session.ts';
import type { OutputSchema } from '../output/schema.ts';
import { Agent, type AgentOptions } from './agent.ts';

export interface DeepAgentOptions extends AgentOptions {
  /** Check the answer against the task and revise it once when the check fails. Default false. */
  verify?: boolean;
}

/**
 * An agent that plans before it acts (docs/chat.md): each run is a `deepAgentRun` workflow that writes
 * a short plan, executes it with the same skills and tools, and with `verify: true` checks the
 * answer and revises it at most once. `metadata.plan` and `metadata.verification` say what happened.
 * With `output`, the executed (and, after a failed check, revised) answer is the structured one:
 * the check reads its JSON, and `result.output` is the object.
 *
 * @example
 * const agent = DeepAgent.withBuiltins({ llm, verify: true, skills: ['security-engineer'] });
 * const { output, metadata } = await agent.run('Review this service for injection risks');
 */
export class DeepAgent<S extends OutputSchema | undefined = undefined> extends Agent<S> {
  readonly #verify: boolean;

  static override withBuiltins<S extends OutputSchema | undefined = undefined>(
    opts: DeepAgentOptions & { output?: S },
  ): DeepAgent<S> {
    const agent = new DeepAgent<S>(opts);
    agent.enableBuiltins();
    return agent;
  }

  constructor(opts: DeepAgentOptions & { output?: S }) {
    super(opts);
    this.#verify = opts.verify ?? false;
  }

  /**
   * A chat session with this agent; turns are plain agent turns.
   *
   * @deprecated Use {@link Agent.chatSession}, the one name for opening a chat session on `Agent`,
   * `DeepAgent` and `AgentClient` alike; `chat` stays as an alias.
   */
  chat(opts: { sessionId?: string; idleTimeoutMs?: number } = {}): AgentChatSession {
    return this.chatSession(opts);
  }

  protected override runKind(): { deep: { verify: boolean } } {
    return { deep: { verify: this.#verify } };
  }
}
