import type { Client } from '@temporalio/client';
import { AgentRunHandle } from '../client/run-handle.ts';
import { RunTask } from './run-task.ts';
import { parseTaskId, sessionIdFor } from './task-ids.ts';
import type { TaskSource } from './task-source.ts';
import { TurnTask } from './turn-task.ts';

/** Where the task an id names is read: its run, or its turn of its context's chat session. */
export function taskSourceOf(client: Client, taskId: string): TaskSource {
  const parsed = parseTaskId(taskId);
  if (parsed?.context === undefined)
    return new RunTask(new AgentRunHandle(client.workflow.getHandle(taskId)));
  return new TurnTask(client, taskId, sessionIdFor(parsed.agent, parsed.context), parsed.message);
}
