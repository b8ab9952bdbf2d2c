/**
 * The `toolkit-agent/tools/notes` entry point.
 *
 * @module toolkit-agent/tools/notes
 */
import '../../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
import { z } from 'zod';
import type { CredentialRecord } from '../../credentials/types.ts';
import { NotFoundError, ToolInputError } from '../../errors.ts';
import { errorForResponse } from '../../http/classify.ts';
import { httpRequest } from '../../http/request.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';
import { parseMarkdownBlocks } from '../markdown-blocks.ts';
import { NOTION_VERSION, toNotionBlock } from './blocks.ts';
import { collectPages } from '../../http/collect-pages.ts';

const parameters = z.object({
  action: z.enum(['search', 'create']),
  query: z.string().optional().describe('search: words in page titles'),
  parent_id: z
    .string()
    .optional()
    .describe('create: the parent page id (required; it must be shared with the integration)'),
  title: z.string().optional().describe('create: the page title (required)'),
  content: z.string().optional().describe('create: Markdown (headings, lists, code, paragraphs)'),
  limit: z.number().int().min(1).max(100).optional(),
});

interface NotionPage {
  id: string;
  url?: string;
  last_edited_time?: string;
  properties?: Record<string, { type: string; title?: Array<{ plain_text: string }> }>;
}

/**
 * `notes` (Notion, docs/connectors.md): `search` pages and `create` a page under a parent, its Markdown content
 * turned into Notion blocks. Pages must be shared with the integration; Notion's `object_not_found`
 * says exactly that.
 */
export class NotesTool extends BaseConnectorTool<typeof parameters> {
  readonly name = 'notes';
  readonly description =
    'Search pages, or create a page with Markdown content, in the notes workspace (Notion).';
  readonly parameters = parameters;
  protected override readonly defaultCredentialKey = 'notes';
  protected override readonly credentialTypes = ['api_key', 'bearer', 'oauth2'] as const;

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const record = await this.getCredential(context);
    if (args.action === 'search') {
      const limit = args.limit ?? 10;
      const pages = await collectPages<NotionPage>(limit, async (cursor, wanted) => {
        const body = (await notion(record, context, '/v1/search', {
          query: args.query ?? '',
          filter: { property: 'object', value: 'page' },
          page_size: Math.min(wanted, 100),
          ...(cursor ? { start_cursor: cursor } : {}),
        })) as { results: NotionPage[]; has_more?: boolean; next_cursor?: string | null };
        return {
          items: body.results,
          next: body.has_more && body.next_cursor ? body.next_cursor : undefined,
        };
      });
      const lines = pages.map(
        (page) => `${pageTitle(page)} (id ${page.id})${page.url ? ` ${page.url}` : ''}`,
      );
      return {
        text: lines.length
          ? lines.join('\n')
          : `No page matches "${args.query ?? ''}" among the pages shared with the integration.`,
        metadata: { pages },
      };
    }
    if (!args.parent_id || !args.title) throw new ToolInputError('create needs parent_id and title.');
    const page = (await notion(record, context, '/v1/pages', {
      parent: { page_id: args.parent_id },
      properties: { title: { title: [{ text: { content: args.title } }] } },
      children: parseMarkdownBlocks(args.content ?? '')
        .slice(0, 100)
        .map(toNotionBlock),
    })) as NotionPage;
    return {
      text: `Created "${args.title}" (id ${page.id})${page.url ? ` ${page.url}` : ''}`,
      metadata: { id: page.id, url: page.url },
    };
  }
}

function pageTitle(page: NotionPage): string {
  const title = Object.values(page.properties ?? {}).find((p) => p.type === 'title')?.title;
  return title?.map((t) => t.plain_text).join('') || 'Untitled';
}

async function notion(
  record: CredentialRecord,
  context: ToolContext,
  path: string,
  body: unknown,
): Promise<unknown> {
  const base =
    typeof record.metadata?.base_url === 'string' ? record.metadata.base_url : 'https://api.notion.com';
  const response = await httpRequest({
    method: 'POST',
    url: new URL(path, base),
    headers: {
      authorization: `Bearer ${record.token}`,
      'notion-version': NOTION_VERSION,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
    idempotent: path === '/v1/search',
    secrets: context.secrets,
    signal: context.signal,
  });
  if (response.status === 200) return response.json();
  let error: { code?: string; message?: string } = {};
  try {
    error = response.json() as typeof error;
  } catch {
    // not JSON
  }
  if (error.code === 'object_not_found') {
    throw new NotFoundError(
      `Notion: ${error.message ?? 'object not found'}. The page is not shared with the integration: open it in Notion, ` +
        'choose ••• → Connections, and add the integration.',
    );
  }
  throw errorForResponse(response, {
    method: 'POST',
    service: 'Notion',
    idempotent: path === '/v1/search',
    credentialKey: 'notes',
    detail: error.message,
  });
}
