import type { Task } from '@a2a-js/sdk';
import type { AgentRunHandle } from '../client/run-handle.ts';
import type { AgentEvent } from '../common/events.ts';

/**
 * Where a task's state is read: a run (a task in a context of its own) or a turn of the chat
 * session of the task's context. Nothing is kept here: every read asks the workflow.
 */
export interface TaskSource {
  readonly taskId: string;
  /** The workflow whose controls decide the task's waits and stop it: the run, or the chat session. */
  readonly controls: AgentRunHandle<unknown>;
  /** The task as it is now. */
  read(): Promise<Task>;
  /** The task's events after `afterSeq`, as they happen, ending after its last. */
  events(afterSeq: number): AsyncIterable<AgentEvent>;
  /** The seq of the workflow's last event now (0 before the first). */
  lastSeq(): Promise<number>;
  /** Whether the workflow exists. */
  exists(): Promise<boolean>;
}
