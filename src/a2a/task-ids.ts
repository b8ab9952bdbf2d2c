import { createHash } from 'node:crypto';

/**
 * Task ids are workflow ids, derived from what the client sent: `a2a-<agent>-<message>` for a task
 * in a context of its own, `a2a-<agent>~<context>~<message>` for a task in the client's context.
 * An id with other characters than Temporal ids read well (or a very long one) is hashed.
 */
export function taskIdFor(agent: string, messageId: string, contextId?: string): string {
  return contextId ? `a2a-${agent}~${key(contextId)}~${key(messageId)}` : `a2a-${agent}-${key(messageId)}`;
}

/** The context of a task: the one its first message named, else the task itself. */
export function contextIdOf(taskId: string): string {
  const first = taskId.indexOf('~');
  const last = taskId.lastIndexOf('~');
  return first >= 0 && last > first ? taskId.slice(first + 1, last) : taskId;
}

/** Whether a task id is one of `agent`'s. */
export function isTaskOf(agent: string, taskId: string): boolean {
  return taskId.startsWith(`a2a-${agent}-`) || taskId.startsWith(`a2a-${agent}~`);
}

function key(id: string): string {
  return /^[\w.:@-]{1,100}$/.test(id) ? id : createHash('sha256').update(id).digest('hex').slice(0, 40);
}
