import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { UpstreamError } from '../../src/errors.ts';
import { LINEAR_DOCUMENTS } from '../../src/tools/linear/documents.ts';
import { IssueTrackerTool } from '../../src/tools/linear/issue-tracker.ts';
import {
  LINEAR_SCHEMA_AVAILABLE,
  schemaErrors,
  startLinearServer,
} from '../support/providers/linear-server.ts';
import { toolContext } from '../support/tool-context.ts';

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function setup(type: 'api_key' | 'oauth2' = 'api_key', options?: { loseFirstCreateAnswer?: boolean }) {
  const linear = await startLinearServer(options);
  servers.push(linear);
  const store = new InMemoryCredentialStore();
  await store.put({
    name: 'issue_tracker',
    type,
    token: 'lin_api_canary123456',
    metadata: { base_url: linear.url },
  });
  return { linear, store, tool: new IssueTrackerTool() };
}

describe.skipIf(!LINEAR_SCHEMA_AVAILABLE)(
  'issue_tracker against a Linear stand-in that validates every request with the published schema',
  () => {
    it("sends documents and variables that Linear's schema accepts", async () => {
      expect(await schemaErrors(LINEAR_DOCUMENTS.search, { term: 'login', first: 10 })).toEqual([]);
      expect(
        await schemaErrors(LINEAR_DOCUMENTS.create, {
          input: { id: 'x', teamId: 't', title: 'T', priority: 2 },
        }),
      ).toEqual([]);
      expect(await schemaErrors(LINEAR_DOCUMENTS.byId, { id: 'x' })).toEqual([]);
      // And the validation is real: a wrong field or variable is caught.
      expect(await schemaErrors('query { searchIssues(term: "x") { nodes { nope } } }', {})).not.toEqual([]);
      expect(
        await schemaErrors(LINEAR_DOCUMENTS.create, { input: { teamId: 't', priority: 'high' } }),
      ).not.toEqual([]);
      expect(await schemaErrors(LINEAR_DOCUMENTS.create, { input: { title: 'no team' } })).not.toEqual([]);
    });

    it('searches titles and descriptions, with a personal key sent without "Bearer"', async () => {
      const { linear, store, tool } = await setup();
      const { text, metadata } = await tool.run(toolContext(store), { action: 'search', query: 'login' });
      expect(text).toBe(
        'ENG-1 [Todo, urgent] Login fails on Safari (id a1b2c3d4-0000-4000-8000-000000000001) https://linear.app/acme/issue/ENG-1\n' +
          'ENG-2 [Todo, normal] Slow dashboard (id a1b2c3d4-0000-4000-8000-000000000002) https://linear.app/acme/issue/ENG-2',
      );
      expect(metadata.issues).toHaveLength(2);
      expect(linear.requests[0]!.headers.authorization).toBe('lin_api_canary123456');
    });

    it('sends OAuth tokens with "Bearer"', async () => {
      const { linear, store, tool } = await setup('oauth2');
      await tool.run(toolContext(store), { action: 'search', query: 'dashboard' });
      expect(linear.requests[0]!.headers.authorization).toBe('Bearer lin_api_canary123456');
    });

    it('creates with a client-chosen id, so a retry after a lost answer makes no second issue', async () => {
      const { linear, store, tool } = await setup('api_key', { loseFirstCreateAnswer: true });
      const args = {
        action: 'create' as const,
        team_id: 'team-eng',
        title: 'Flaky test',
        description: 'It fails on Mondays',
        priority: 2,
      };
      const context = toolContext(store, { workflowId: 'wf-7', callId: 'call-3' });
      const lost = await tool.run(context, args).catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(UpstreamError);
      expect((lost as UpstreamError).retryable).toBe(true);
      const retried = await tool.run(context, args); // what the activity retry does
      expect(retried.text).toBe('Created ENG-3: Flaky test https://linear.app/acme/issue/ENG-3');
      expect(linear.issues.filter((i) => i.title === 'Flaky test')).toHaveLength(1);
      const other = await tool.run(toolContext(store, { workflowId: 'wf-7', callId: 'call-4' }), args);
      expect(other.text).toMatch(/Created ENG-4/);
    });

    it('explains what create needs, before any request', async () => {
      const { linear, store, tool } = await setup();
      await expect(tool.run(toolContext(store), { action: 'create', title: 'No team' })).rejects.toThrow(
        /create needs team_id and title/,
      );
      expect(linear.requests).toHaveLength(0);
    });
  },
);
