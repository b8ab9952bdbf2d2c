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

/** The parts of a task id: its agent, its context (when the client named one) and its message. */
export function parseTaskId(
  taskId: string,
): { agent: string; context?: string; message: string } | undefined {
  const parts = taskId.split('~');
  if (parts[0] !== 'a2a') return undefined;
  if (parts.length === 3) return { agent: parts[1]!, message: parts[2]! };
  if (parts.length === 4) return { agent: parts[1]!, context: parts[2]!, message: parts[3]! };
  return undefined;
}

/** The chat session of an agent's context (session ids take no `@`: such a key is hashed). */
export function sessionIdFor(agent: string, context: string): string {
  const safe = /^[\w.:-]{1,100}$/.test(context)
    ? context
    : createHash('sha256').update(context).digest('hex').slice(0, 40);
  return `a2a.${agent}.${safe}`;
}
