import type { Client } from '@temporalio/client';
import type { Task } from '@a2a-js/sdk';
import { AgentRunHandle } from '../client/run-handle.ts';
import { streamRunEvents } from '../client/event-stream.ts';
import { chatWorkflowId } from '../common/chat.ts';
import type { AgentEvent } from '../common/events.ts';
import type { PendingApproval } from '../common/control.ts';
import type { PendingAuthorization } from '../common/authorization.ts';
import { answerArtifact, STATE } from './parts.ts';
import { lastSeqOf, workflowExists } from './run-task.ts';
import { inputRequest, status, task } from './task-messages.ts';
import { sessionStateQuery } from '../common/workflow-definitions.ts';
import { earlierTurnEvents } from './earlier-turn.ts';
import { contextIdOf } from './task-ids.ts';
import type { TaskSource } from './task-source.ts';

/**
 * A task in the client's context: one turn (its id the message's) of the chat session of that
 * context, so the tasks of a context share one conversation. Its state is read from the session's
 * events of that turn: none yet (queued) is submitted, its end is completed or canceled, a wait of
 * the session's running turn (one turn runs at a time) is input-required. A turn that ran before the
 * session continued as new is read from the earlier run that ran it.
 */
export class TurnTask implements TaskSource {
  readonly taskId: string;
  readonly turnId: string;
  readonly controls: AgentRunHandle<unknown>;
  readonly #client: Client;

  constructor(client: Client, taskId: string, sessionId: string, turnId: string) {
    this.#client = client;
    this.taskId = taskId;
    this.turnId = turnId;
    this.controls = new AgentRunHandle(client.workflow.getHandle(chatWorkflowId(sessionId)));
  }

  async read(): Promise<Task> {
    const ids = { taskId: this.taskId, contextId: contextIdOf(this.taskId) };
    const events = await this.#turnEvents();
    const end = events.find((event) => event.type === 'run_completed' || event.type === 'run_cancelled');
    if (end?.type === 'run_cancelled')
      return task(ids, STATE.canceled, status(ids, 'The turn was cancelled.'));
    if (end) {
      const stop = String(end.payload.stop_reason);
      const done = task(ids, STATE.completed, status(ids, `The turn ended: ${stop}.`));
      done.artifacts = [answerArtifact(end.payload.output)];
      done.metadata = { stop_reason: stop, iterations: end.payload.iterations };
      return done;
    }
    if (!events.length) return task(ids, STATE.submitted);
    const [approvals, authorizations] = await Promise.all([
      this.controls.pendingApprovals(),
      this.controls.pendingAuthorizations(),
    ]).catch(() => [[], []] as [PendingApproval[], PendingAuthorization[]]);
    if (approvals.length || authorizations.length) {
      return task(ids, STATE.inputRequired, inputRequest(ids, approvals, authorizations));
    }
    return task(ids, STATE.working);
  }

  events(afterSeq: number): AsyncIterable<AgentEvent> {
    return streamRunEvents(this.controls.workflow, afterSeq, { include: (event) => this.#ours(event) });
  }

  lastSeq(): Promise<number> {
    return lastSeqOf(this.controls);
  }

  exists(): Promise<boolean> {
    return workflowExists(this.controls);
  }

  /**
   * The turn's events: in the session's current run, or, for a turn the session took before it
   * continued as new, in the earlier run that ran it (so it reads as it ended, not as submitted).
   */
  async #turnEvents(): Promise<AgentEvent[]> {
    const now = (await this.controls.listEvents().catch(() => [] as AgentEvent[])).filter((event) =>
      this.#ours(event),
    );
    if (now.length > 0) return now;
    const state = await this.controls.workflow.query(sessionStateQuery).catch(() => undefined);
    if (!state?.recentTurnIds?.includes(this.turnId) || state.running?.turn_id === this.turnId) return now;
    return earlierTurnEvents(this.#client, this.controls.workflowId, this.turnId).catch(() => now);
  }

  #ours(event: AgentEvent): boolean {
    return event.payload.turn_id === this.turnId;
  }
}
