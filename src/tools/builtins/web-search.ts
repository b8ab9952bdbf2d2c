import { z } from 'zod';
import { CredentialError, UpstreamError } from '../../errors.ts';
import { errorForResponse } from '../../http/classify.ts';
import { httpRequest } from '../../http/request.ts';
import type { CredentialRecord } from '../../credentials/types.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';

interface Hit {
  title: string;
  url: string;
  snippet: string;
}

/** Default API roots; a SearXNG instance (its JSON format enabled) has none: give `metadata.base_url`. */
const PROVIDERS = {
  searxng: { base: undefined },
  brave: { base: 'https://api.search.brave.com' },
  tavily: { base: 'https://api.tavily.com' },
} as const;

const webSearchParameters = z.object({
  query: z.string().min(1),
  count: z.number().int().min(1).max(20).optional().describe('Results (default 5)'),
});

/**
 * `web_search`: results (title, URL, snippet) from the provider in the `web_search` credential:
 * `metadata.provider` is `searxng` (with `metadata.base_url`), `brave` or `tavily`.
 */
export class WebSearchTool extends BaseConnectorTool<typeof webSearchParameters> {
  readonly name = 'web_search';
  readonly description = 'Search the web. Returns the top results with title, URL and snippet.';
  readonly parameters = webSearchParameters;
  protected override readonly defaultCredentialKey = 'web_search';

  async run(context: ToolContext, args: z.infer<typeof webSearchParameters>): Promise<ToolOutput> {
    const { query, count = 5 } = args;
    const record = await this.getCredential(context);
    const provider = (
      typeof record.metadata?.provider === 'string' ? record.metadata.provider : ''
    ) as keyof typeof PROVIDERS;
    if (!(provider in PROVIDERS)) {
      throw new CredentialError(
        `The web_search credential needs metadata.provider: one of ${Object.keys(PROVIDERS).join(', ')}.`,
      );
    }
    const configured = record.metadata?.base_url;
    const base = typeof configured === 'string' ? configured : (PROVIDERS[provider].base ?? '');
    if (!base)
      throw new CredentialError(`The web_search credential for ${provider} needs metadata.base_url.`);
    const hits = (await search(provider, base, record, query, count, context)).slice(0, count);
    const lines = hits.map((hit, i) => `${i + 1}. ${hit.title}\n   ${hit.url}\n   ${hit.snippet}`);
    return {
      text: lines.length ? lines.join('\n') : `No results for "${query}".`,
      metadata: { results: hits },
    };
  }
}

async function search(
  provider: keyof typeof PROVIDERS,
  base: string,
  record: CredentialRecord,
  query: string,
  count: number,
  context: ToolContext,
): Promise<Hit[]> {
  const common = { secrets: context.secrets, signal: context.signal };
  if (provider === 'tavily') {
    const response = await httpRequest({
      ...common,
      method: 'POST',
      url: new URL('/search', base),
      headers: { authorization: `Bearer ${record.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, max_results: count }),
      idempotent: true,
    });
    const body = ok(response, 'Tavily') as {
      results?: Array<{ title: string; url: string; content: string }>;
    };
    return (body.results ?? []).map((r) => ({ title: r.title, url: r.url, snippet: r.content }));
  }
  const url =
    provider === 'brave'
      ? new URL('/res/v1/web/search', base)
      : new URL('search', base.endsWith('/') ? base : `${base}/`);
  url.searchParams.set('q', query);
  if (provider === 'brave') url.searchParams.set('count', String(count));
  else url.searchParams.set('format', 'json');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (provider === 'brave') headers['x-subscription-token'] = record.token;
  else if (record.type !== 'none' && record.token) headers.authorization = `Bearer ${record.token}`;
  const response = await httpRequest({
    ...common,
    method: 'GET',
    url,
    headers,
    secretHeaders: ['x-subscription-token'],
  });
  if (provider === 'brave') {
    const body = ok(response, 'Brave Search') as {
      web?: { results?: Array<{ title: string; url: string; description: string }> };
    };
    return (body.web?.results ?? []).map((r) => ({ title: r.title, url: r.url, snippet: r.description }));
  }
  const body = ok(response, 'SearXNG') as {
    results?: Array<{ title: string; url: string; content?: string }>;
  };
  return (body.results ?? []).map((r) => ({ title: r.title, url: r.url, snippet: r.content ?? '' }));
}

function ok(response: Awaited<ReturnType<typeof httpRequest>>, service: string): unknown {
  if (response.status !== 200)
    throw errorForResponse(response, {
      method: 'GET',
      service,
      idempotent: true,
      credentialKey: 'web_search',
    });
  try {
    return response.json();
  } catch {
    throw new UpstreamError(`${service} answered without JSON (is its JSON format enabled?).`);
  }
}
