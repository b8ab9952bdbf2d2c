import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.ts';
import { AgentClient } from '../../src/client/agent-client.ts';
import { createCodecServer } from '../../src/codec/codec-server.ts';
import { authorizeUiOrigin } from '../../src/codec/ui-authorization.ts';
import { FileCredentialStore } from '../../src/credentials/file-store.ts';
import { ConfigurationError } from '../../src/errors.ts';
import { McpConnectionPool } from '../../src/mcp/pool.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { DriveSuiteOAuthHelper } from '../../src/oauth/drive-suite.ts';
import { InMemoryOAuthStateStore } from '../../src/oauth/state-store.ts';
import { createSkill } from '../../src/skills/skill.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { usageFilter } from '../../src/usage/query.ts';

/** What `fn` threw, checked to be a ConfigurationError whose message matches `what`. */
function misconfiguration(fn: () => unknown, what: RegExp): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ConfigurationError);
  expect((thrown as ConfigurationError).code).toBe('CONFIGURATION');
  expect((thrown as Error).message).toMatch(what);
}

describe('misconfiguration is a ConfigurationError that says what to do', () => {
  it('for stores, skills, tools and the agent', () => {
    misconfiguration(
      () => new FileCredentialStore({ path: '' }),
      /needs a `path`, e\.g\. new FileCredentialStore/,
    );
    misconfiguration(
      () => createSkill({ name: '', description: 'x' }),
      /non-empty `name`, e\.g\. createSkill/,
    );
    misconfiguration(() => createSkill({ name: 'X', description: ' ' }), /non-empty `description`/);
    misconfiguration(
      () =>
        defineTool({
          name: 'x',
          description: 'x',
          parameters: z.string() as never,
          run: () => ({ text: '', metadata: {} }),
        }),
      /parameters must be a zod object \(z\.object/,
    );
    const agent = new Agent({ llm: new ScriptedModel([]) });
    misconfiguration(() => agent.addSkill({} as never), /addSkill\('brand-voice'\)/);
  });

  it('for the client, OAuth, the codec server and usage queries', async () => {
    const agents = new AgentClient({
      client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
      taskQueue: 'nowhere',
    });
    await expect(agents.startRun('support', ' ')).rejects.toThrow(ConfigurationError);
    await expect(agents.startRun('support', '')).rejects.toThrow(/pass the task for the agent as text/);
    await expect(agents.startRun('support', 'hi', { timeoutMs: -1 })).rejects.toThrow(ConfigurationError);
    await expect(agents.authorizationCompleted('acme', '')).rejects.toThrow(ConfigurationError);
    misconfiguration(
      () =>
        new DriveSuiteOAuthHelper({
          config: { client_id: '', redirect_uri: '' } as never,
          credentialStore: new InMemoryCredentialStore(),
          stateStore: new InMemoryOAuthStateStore(),
        }),
      /client_id and config\.redirect_uri: give the client id/,
    );
    misconfiguration(() => authorizeUiOrigin({ origins: [], namespaces: ['default'] }), /origins: \['http/);
    const keys = { a: randomBytes(32).toString('base64'), b: randomBytes(32).toString('base64') };
    misconfiguration(
      () => createCodecServer({ keys, allowedOrigins: ['http://localhost:8233'] }),
      /name the one \/encode uses as currentKeyId/,
    );
    misconfiguration(() => usageFilter({ groupBy: 'week' as never }), /groupBy must be one of/);
    misconfiguration(() => usageFilter({ since: 'yesterday-ish' }), /give a duration back from now/);
    misconfiguration(() => new McpConnectionPool({ idleTimeoutMs: 0 }), /mcpIdleTimeoutMs must be above 0/);
  });
});
