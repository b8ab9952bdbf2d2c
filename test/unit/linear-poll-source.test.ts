import { describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { LinearPollSource } from '../../src/triggers/poll-sources/linear.ts';
import { json, startRecordingServer } from '../support/http-server.ts';
import { LINEAR_SCHEMA_AVAILABLE, schemaErrors } from '../support/providers/linear-server.ts';
import { toolContext } from '../support/tool-context.ts';

const issue = (n: number, updatedAt: string) => ({
  id: `issue-${n}`,
  identifier: `ENG-${n}`,
  title: `Bug ${n}`,
  description: `Details ${n}`,
  url: `https://linear.app/acme/issue/ENG-${n}`,
  updatedAt,
});

describe.skipIf(!LINEAR_SCHEMA_AVAILABLE)('the Linear poll source', () => {
  it('asks Linear for issues updated since the cursor (a query its schema accepts), page by page, and moves the cursor', async () => {
    const problems: string[] = [];
    const linear = await startRecordingServer(async (request, response) => {
      const { query, variables } = JSON.parse(request.body) as {
        query: string;
        variables: Record<string, unknown>;
      };
      problems.push(...(await schemaErrors(query, variables)));
      const first = variables.after === null || variables.after === undefined;
      json(response, 200, {
        data: {
          issues: first
            ? {
                nodes: [issue(2, '2026-11-25T10:00:02.000Z'), issue(1, '2026-11-25T10:00:01.000Z')],
                pageInfo: { hasNextPage: true, endCursor: 'c1' },
              }
            : {
                nodes: [issue(3, '2026-11-25T10:00:03.000Z')],
                pageInfo: { hasNextPage: false, endCursor: null },
              },
        },
      });
    });
    try {
      const store = new InMemoryCredentialStore();
      await store.put({
        name: 'issue_tracker',
        type: 'api_key',
        token: 'lin_api_test',
        metadata: { base_url: linear.url },
      });
      const source = new LinearPollSource();
      const fromNow = await source.poll(toolContext(store), undefined);
      expect(fromNow.items).toEqual([]);
      expect(Date.parse(fromNow.cursor)).toBeGreaterThan(Date.now() - 5_000);
      expect(linear.requests).toHaveLength(0); // the first poll only marks "now"

      const polled = await source.poll(toolContext(store), '2026-11-25T10:00:00.000Z');
      expect(problems).toEqual([]);
      expect(linear.requests.map((r) => r.headers.authorization)).toEqual(['lin_api_test', 'lin_api_test']);
      expect(polled.items.map((i) => i.id)).toEqual([
        'issue-1@2026-11-25T10:00:01.000Z',
        'issue-2@2026-11-25T10:00:02.000Z',
        'issue-3@2026-11-25T10:00:03.000Z',
      ]);
      expect(polled.items[0]).toMatchObject({
        title: 'ENG-1: Bug 1',
        text: 'Details 1',
        fields: { identifier: 'ENG-1' },
      });
      expect(polled.cursor).toBe('2026-11-25T10:00:03.000Z');
    } finally {
      await linear.close();
    }
  });
});
