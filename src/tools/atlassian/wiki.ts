/**
 * The `toolkit-agent/tools/wiki` entry point.
 *
 * @module toolkit-agent/tools/wiki
 */
import '../../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
import { z } from 'zod';
import { NotFoundError, ToolInputError } from '../../errors.ts';
import { atlassianClient } from './client.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';
import { parseMarkdownBlocks } from '../markdown-blocks.ts';
import { toStorage } from './storage-format.ts';
import { collectPages } from '../../http/collect-pages.ts';

const parameters = z.object({
  action: z.enum(['search', 'create']),
  query: z.string().optional().describe('search: plain words'),
  cql: z.string().optional().describe('search: a CQL query, used as is'),
  space_key: z.string().optional().describe('create: the space key, e.g. ENG (required)'),
  title: z.string().optional().describe('create: the page title (required)'),
  content: z.string().optional().describe('create: Markdown'),
  parent_id: z.string().optional().describe('create: the parent page id'),
  limit: z.number().int().min(1).max(50).optional(),
});

interface SearchResult {
  title?: string;
  excerpt?: string;
  url?: string;
  content?: { id: string; type: string; title: string };
}

/**
 * `wiki` (Confluence Cloud, docs/connectors.md): `search` with plain words (as CQL) or CQL, and `create` a page
 * in a space (its key resolved to the numeric id) from Markdown, written as storage-format XHTML.
 */
export class WikiTool extends BaseConnectorTool<typeof parameters> {
  readonly name = 'wiki';
  readonly description =
    'Search wiki pages (plain words or CQL), or create a page from Markdown in a space (Confluence).';
  readonly parameters = parameters;
  protected override readonly defaultCredentialKey = 'wiki';
  protected override readonly credentialTypes = ['api_key', 'bearer', 'basic'] as const;

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const { site, call } = atlassianClient(
      await this.getCredential(context),
      this.credentialKey,
      context,
      'Confluence',
    );
    if (args.action === 'search') {
      if (!args.cql && !args.query?.trim()) throw new ToolInputError('search needs a query or cql.');
      const cql =
        args.cql ??
        `type = page AND text ~ "${args.query!.trim().replace(/[\\"]/g, (c) => `\\${c}`)}" ORDER BY lastmodified DESC`;
      const limit = args.limit ?? 10;
      const results = await collectPages<SearchResult>(limit, async (cursor, wanted) => {
        const body = (await call('GET', '/wiki/rest/api/search', {
          query: { cql, limit: wanted, ...(cursor ? { cursor } : {}) },
        })) as { results: SearchResult[]; _links?: { next?: string } };
        const next = body._links?.next;
        return {
          items: body.results,
          next: next ? (new URL(next, site.base).searchParams.get('cursor') ?? undefined) : undefined,
        };
      });
      const lines = results.map(
        (r) =>
          `${r.content?.title ?? r.title ?? '?'} (id ${r.content?.id ?? '?'})${r.url ? ` ${new URL(`/wiki${r.url}`, site.base).toString()}` : ''}`,
      );
      return {
        text: lines.length ? lines.join('\n') : `No page matches: ${cql}`,
        metadata: { cql, results },
      };
    }
    if (!args.space_key || !args.title) throw new ToolInputError('create needs space_key and title.');
    const spaces = (await call('GET', '/wiki/api/v2/spaces', { query: { keys: args.space_key } })) as {
      results: Array<{ id: string; key: string }>;
    };
    const space = spaces.results.find((s) => s.key === args.space_key);
    if (!space)
      throw new NotFoundError(`No Confluence space with key ${args.space_key} that this account can see.`);
    const page = (await call('POST', '/wiki/api/v2/pages', {
      body: {
        spaceId: space.id,
        status: 'current',
        title: args.title,
        ...(args.parent_id ? { parentId: args.parent_id } : {}),
        body: { representation: 'storage', value: toStorage(parseMarkdownBlocks(args.content ?? '')) },
      },
    })) as { id: string; title: string; _links?: { webui?: string; base?: string } };
    const link = page._links?.webui ? ` ${new URL(`/wiki${page._links.webui}`, site.base).toString()}` : '';
    return {
      text: `Created "${page.title}" (id ${page.id})${link}`,
      metadata: { id: page.id, space_id: space.id },
    };
  }
}
