import { createHash } from 'node:crypto';

/**
 * Task ids are workflow ids, derived from what the client sent: `a2a~<agent>~<message>` for a task
 * in a context of its own, `a2a~<agent>~<context>~<message>` for a task in the client's context (agent
 * names and the parts have no `~`). An id with other characters than Temporal ids read well (or a
 * very long one) is hashed.
 */
export function taskIdFor(agent: string, messageId: string, contextId?: string): string {
  return ['a2a', agent, ...(contextId ? [key(contextId)] : []), key(messageId)].join('~');
}

/** The context of a task: the one its first message named, else the task itself. */
export function contextIdOf(taskId: string): string {
  const parts = taskId.split('~');
  return parts.length === 4 && parts[0] === 'a2a' ? parts[2]! : taskId;
}

/** Whether a task id is one of `agent`'s. */
export function isTaskOf(agent: string, taskId: string): boolean {
  const parts = taskId.split('~');
  return parts[0] === 'a2a' && parts[1] === agent && (parts.length === 3 || parts.length === 4);
}

function key(id: string): string {
  return /^[\w.:@-]{1,100}$/.test(id) ? id : createHash('sha256').update(id).digest('hex').slice(0, 40);
}
