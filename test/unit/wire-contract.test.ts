import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { closestName } from '../../src/common/closest-name.ts';
import { checkWorkflowInput, INVALID_WORKFLOW_INPUT } from '../../src/contract/check-input.ts';
import { WORKFLOW_INPUTS } from '../../src/contract/workflow-inputs.generated.ts';

const schema = JSON.parse(
  await readFile(new URL('../../schemas/toolkit-agent.schema.json', import.meta.url), 'utf8'),
) as { definitions: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };

/** The failure a check throws, or undefined when it passes. */
function failure(check: () => void): { message: string; type?: string } | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return error as { message: string; type?: string };
  }
}

describe('closestName', () => {
  it.each([
    ['agentName', 'agent'],
    ['promt', 'prompt'],
    ['Tenant', 'tenant'],
    ['max_iterations', 'maxIterations'],
    ['sessionid', 'sessionId'],
  ])('%s → %s', (name, expected) => {
    expect(closestName(name, Object.keys(WORKFLOW_INPUTS.chatSession.properties).concat(['prompt']))).toBe(
      expected,
    );
  });

  it('names nothing when no known name is close', () => {
    expect(closestName('colour', ['agent', 'prompt', 'tenant'])).toBeUndefined();
  });
});

describe('checkWorkflowInput', () => {
  it('takes every input the TypeScript client sends', () => {
    expect(failure(() => checkWorkflowInput('agentRun', { agent: 'support', prompt: 'hi' }))).toBeUndefined();
    const full = {
      agent: 'support',
      prompt: 'hi',
      tenant: 'acme',
      maxIterations: 3,
      skills: ['brand-voice', { id: 'x', name: 'X', description: 'd' }],
      model: 'fast',
      timeoutMs: 1000,
      limits: { maxTotalTokens: 10 },
      output: { type: 'object' },
      outputRepairs: 1,
    };
    expect(failure(() => checkWorkflowInput('agentRun', full))).toBeUndefined();
    expect(failure(() => checkWorkflowInput('deepAgentRun', { ...full, verify: true }))).toBeUndefined();
    expect(
      failure(() =>
        checkWorkflowInput('chatSession', { agent: 'support', sessionId: 's', idleTimeoutMs: 5 }),
      ),
    ).toBeUndefined();
  });

  it('names an unknown key and the key meant', () => {
    const error = failure(() => checkWorkflowInput('agentRun', { agentName: 'support', prompt: 'hi' }));
    expect(error?.type).toBe(INVALID_WORKFLOW_INPUT);
    expect(error?.message).toBe(
      'The agentRun workflow\'s input has an unknown key "agentName": did you mean "agent"? ' +
        'See docs/calling-from-any-language.md for its keys.',
    );
  });

  it("refuses a key that only an object's prototype has", () => {
    expect(
      failure(() => checkWorkflowInput('agentRun', { agent: 'a', prompt: 'p', constructor: 'x' }))?.message,
    ).toContain('unknown key "constructor"');
  });

  it('names a missing required key, a key of the wrong type, and an input that is no object', () => {
    expect(failure(() => checkWorkflowInput('chatSession', { agent: 'support' }))?.message).toContain(
      'lacks the required key "sessionId".',
    );
    expect(
      failure(() => checkWorkflowInput('agentRun', { agent: 'a', prompt: 'p', maxIterations: '3' }))?.message,
    ).toContain('has "maxIterations" of type string; it must be number.');
    expect(failure(() => checkWorkflowInput('agentRun', [{ agent: 'a' }]))?.message).toContain(
      'must be one JSON object; it is an array.',
    );
    expect(
      failure(() => checkWorkflowInput('agentRun', { agent: 'a', prompt: 'p', tenant: null }))?.message,
    ).toContain('has "tenant" of type null; it must be string.');
  });

  it('checks each workflow against its definition in the published schema', () => {
    const definitions = {
      agentRun: 'AgentRunInput',
      deepAgentRun: 'DeepAgentRunInput',
      chatSession: 'ChatSessionInput',
      sessionMessage: 'SessionMessageInput',
      agentPoller: 'PollerInput',
    } as const;
    for (const [workflow, name] of Object.entries(definitions)) {
      const definition = schema.definitions[name]!;
      const table = WORKFLOW_INPUTS[workflow as keyof typeof WORKFLOW_INPUTS];
      expect(Object.keys(table.properties).sort()).toEqual(Object.keys(definition.properties ?? {}).sort());
      expect([...table.required].sort()).toEqual([...(definition.required ?? [])].sort());
    }
  });
});
