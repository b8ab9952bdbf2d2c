import { describe, expect, it } from 'vitest';
import { contextIdOf, isTaskOf, taskIdFor } from '../../src/a2a/task-ids.ts';

describe('A2A task ids', () => {
  it('derives a task id from the message id, and the context from the task id', () => {
    const own = taskIdFor('helper', 'msg-1');
    expect(own).toBe('a2a~helper~msg-1');
    expect(contextIdOf(own)).toBe(own);
    const inContext = taskIdFor('helper', 'msg-2', '550e8400-e29b-41d4-a716-446655440000');
    expect(inContext).toBe('a2a~helper~550e8400-e29b-41d4-a716-446655440000~msg-2');
    expect(contextIdOf(inContext)).toBe('550e8400-e29b-41d4-a716-446655440000');
  });

  it('hashes ids a workflow id should not carry, the same way every time', () => {
    const id = taskIdFor('helper', 'a message/with spaces~and tildes');
    expect(id).toMatch(/^a2a~helper~[0-9a-f]{40}$/);
    expect(taskIdFor('helper', 'a message/with spaces~and tildes')).toBe(id);
    expect(contextIdOf(taskIdFor('helper', 'm', 'ctx with ~'))).toMatch(/^[0-9a-f]{40}$/);
  });

  it("tells an agent's tasks from another's", () => {
    expect(isTaskOf('helper', taskIdFor('helper', 'm'))).toBe(true);
    expect(isTaskOf('helper', taskIdFor('helper', 'm', 'c'))).toBe(true);
    expect(isTaskOf('help', taskIdFor('helper', 'm'))).toBe(false);
    expect(isTaskOf('a', taskIdFor('a-b', 'm'))).toBe(false);
    expect(isTaskOf('helper', 'agent-helper-123')).toBe(false);
  });
});
