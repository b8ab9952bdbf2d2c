import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { NotFoundError, PermissionError, RateLimitError } from '../../src/errors.ts';
import { driveQuery } from '../../src/tools/google/drive-query.ts';
import { FileDriveTool } from '../../src/tools/google/file-drive.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { discoveryValidator, GOOGLE_DISCOVERY_AVAILABLE } from '../support/providers/google-discovery.ts';
import { toolContext } from '../support/tool-context.ts';

const FILES: Record<string, Record<string, string>> = {
  doc1: {
    id: 'doc1',
    name: 'Plan',
    mimeType: 'application/vnd.google-apps.document',
    webViewLink: 'https://docs.google.com/d/doc1',
  },
  sheet1: { id: 'sheet1', name: 'Budget', mimeType: 'application/vnd.google-apps.spreadsheet' },
  huge: {
    id: 'huge',
    name: 'Archive',
    mimeType: 'application/vnd.google-apps.document',
    webViewLink: 'https://docs.google.com/d/huge',
  },
  notes: { id: 'notes', name: 'notes.md', mimeType: 'text/markdown', size: '23' },
  photo: { id: 'photo', name: 'cat.jpg', mimeType: 'image/jpeg', size: '204800' },
};

describe('driveQuery', () => {
  it('passes Drive syntax through and turns words into an escaped full-text query', () => {
    expect(driveQuery("name contains 'budget'")).toBe("name contains 'budget'");
    expect(driveQuery("Ada's plan")).toBe("fullText contains 'Ada\\'s plan' and trashed = false");
  });
});

describe.skipIf(!GOOGLE_DISCOVERY_AVAILABLE)(
  'file_drive against a Drive stand-in that checks the discovery document',
  () => {
    let drive: RecordingServer;
    const validate = discoveryValidator('drive-v3.json');

    beforeEach(async () => {
      drive = await startRecordingServer((request, response) => {
        const problem = validate(request.method, request.path, request.query);
        if (problem) return json(response, 400, { error: { code: 400, message: problem } });
        const q = request.query.get('q') ?? '';
        if (q.includes("'busy'"))
          return json(
            response,
            429,
            {
              error: { code: 429, message: 'Rate Limit Exceeded', errors: [{ reason: 'rateLimitExceeded' }] },
            },
            { 'retry-after': '3' },
          );
        if (request.path === '/drive/v3/files') {
          const second = request.query.get('pageToken') === 'p2';
          return json(response, 200, {
            files: second ? [FILES.sheet1] : [FILES.doc1],
            ...(second ? {} : { nextPageToken: 'p2' }),
          });
        }
        const [, id, exported] = /^\/drive\/v3\/files\/(\w+)(\/export)?$/.exec(request.path) ?? [];
        const file = FILES[id ?? ''];
        if (!file)
          return json(response, 404, {
            error: { code: 404, message: `File not found: ${id}.`, errors: [{ reason: 'notFound' }] },
          });
        if (exported && id === 'huge')
          return json(response, 403, {
            error: {
              code: 403,
              message: 'This file is too large to be exported.',
              errors: [{ reason: 'exportSizeLimitExceeded' }],
            },
          });
        if (exported) {
          response.writeHead(200, { 'content-type': `${request.query.get('mimeType')}; charset=utf-8` });
          response.end(id === 'sheet1' ? 'item,cost\nrent,1200\n' : 'The plan: ship it.');
          return;
        }
        if (request.query.get('alt') === 'media') {
          response.writeHead(200, { 'content-type': 'text/markdown' });
          response.end('# Notes\n\n- ship it ✓');
          return;
        }
        return json(response, 200, file);
      });
    });
    afterEach(() => drive.close());

    async function context(scopes?: string[]) {
      const credentials = new InMemoryCredentialStore();
      await credentials.put({
        name: 'file_drive',
        type: 'oauth2',
        token: 'ya29.drive',
        metadata: { base_url: drive.url, ...(scopes ? { scopes } : {}) },
      });
      return toolContext(credentials);
    }

    it('searches with a full-text query through every page', async () => {
      const { text } = await new FileDriveTool().run(await context(), {
        action: 'search',
        query: 'budget plan',
      });
      expect(text.split('\n')).toEqual([
        'doc1 | Plan | application/vnd.google-apps.document | ',
        'sheet1 | Budget | application/vnd.google-apps.spreadsheet | ',
      ]);
      expect(drive.requests[0]!.query.get('q')).toBe("fullText contains 'budget plan' and trashed = false");
      expect(drive.requests[0]!.query.get('fields')).toBe(
        'nextPageToken,files(id,name,mimeType,modifiedTime,size,webViewLink)',
      );
      expect(drive.requests[1]!.query.get('pageToken')).toBe('p2');
    });

    it("lists a folder's children, newest first", async () => {
      await new FileDriveTool().run(await context(), { action: 'list', folder_id: 'f0', max_results: 1 });
      expect(drive.requests).toHaveLength(1);
      expect(Object.fromEntries(drive.requests[0]!.query)).toMatchObject({
        q: "'f0' in parents and trashed = false",
        orderBy: 'modifiedTime desc',
        pageSize: '1',
      });
    });

    it('exports Docs as text and Sheets as CSV, downloads text files, describes binaries', async () => {
      const tool = new FileDriveTool();
      const ctx = await context();
      expect((await tool.run(ctx, { action: 'get', file_id: 'doc1' })).text).toBe(
        'doc1 | Plan | application/vnd.google-apps.document | \nhttps://docs.google.com/d/doc1\n\nThe plan: ship it.',
      );
      expect((await tool.run(ctx, { action: 'get', file_id: 'sheet1' })).text).toContain(
        'item,cost\nrent,1200',
      );
      expect(drive.requests.find((r) => r.path.endsWith('sheet1/export'))!.query.get('mimeType')).toBe(
        'text/csv',
      );
      expect((await tool.run(ctx, { action: 'get', file_id: 'notes' })).text).toContain('- ship it ✓');
      const photo = await tool.run(ctx, { action: 'get', file_id: 'photo' });
      expect(photo.text).toContain('A image/jpeg file of 204800 bytes: binary content is not shown.');
      expect(drive.requests.filter((r) => r.path.includes('photo'))).toHaveLength(1); // no download
      expect(validate('GET', '/drive/v3/files', new URLSearchParams({ alt: 'media' }))).toMatch(
        /alt must be/,
      );
    });

    it("explains Drive's 10 MB export limit, a missing file, a rate limit and a missing scope", async () => {
      const tool = new FileDriveTool();
      const huge = await tool.run(await context(), { action: 'get', file_id: 'huge' });
      expect(huge.text).toContain(
        "too large to export as text (Drive's 10 MB limit); open it at https://docs.google.com/d/huge",
      );
      await expect(tool.run(await context(), { action: 'get', file_id: 'gone' })).rejects.toThrow(
        NotFoundError,
      );
      const limited = await tool
        .run(await context(), { action: 'search', query: "name = 'busy'" })
        .catch((e: unknown) => e);
      expect(limited).toBeInstanceOf(RateLimitError);
      expect((limited as RateLimitError).retryAfterMs).toBe(3_000);
      const metadataOnly = await context(['https://www.googleapis.com/auth/drive.metadata.readonly']);
      const error = await tool.run(metadataOnly, { action: 'get', file_id: 'doc1' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PermissionError);
      expect((error as Error).message).toMatch(/needs the scope drive.readonly/);
      expect(
        drive.requests.filter((r) => r.path.endsWith('/export') && r.path.includes('doc1')),
      ).toHaveLength(0);
    });
  },
);
