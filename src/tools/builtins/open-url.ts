import type { Readability } from '@mozilla/readability';
import type { parseHTML } from 'linkedom';
import { z } from 'zod';
import { UpstreamError } from '../../errors.ts';
import { errorForResponse } from '../../http/classify.ts';
import { Agent } from 'undici';
import { assertPublicUrl, publicOnlyLookup, type HostResolver } from '../../http/public-address.ts';
import { httpRequest } from '../../http/request.ts';
import { importOptional } from '../../optional-dependency.ts';
import { htmlToMarkdown } from '../html-to-markdown.ts';
import type { ToolContext, ToolOutput } from '../connector-base.ts';
import { BuiltinTool, type BuiltinToolOptions } from './builtin-tool.ts';

/** Named in the error when the HTML packages are not installed. */
const FEATURE = 'The open_url tool (reading HTML pages)';

interface PageDocument {
  title: string;
  body: { textContent: string | null } | null;
}

export interface OpenUrlOptions extends BuiltinToolOptions {
  /** Allow loopback and private addresses (off by default: a model must not reach the worker's network). */
  allowPrivateNetworks?: boolean;
  /** How host names are resolved (for the address checks and the connection). Default: the system's. */
  resolver?: HostResolver;
  /** Bytes of page read at most. Default 3 MiB. */
  maxBytes?: number;
  timeoutMs?: number;
}

const openUrlParameters = z.object({ url: z.string().url() });

/**
 * `open_url`: a web page as readable Markdown: the article kept (Mozilla Readability), navigation,
 * scripts and boilerplate dropped. Redirects are followed up to 5 times, every hop checked, and the
 * private-address check is made again on the address each connection really goes to (a name that
 * resolves to a public address and then to 127.0.0.1, DNS rebinding, is refused).
 */
export class OpenUrlTool extends BuiltinTool<typeof openUrlParameters> {
  readonly name = 'open_url';
  readonly description = 'Open a web page and return its main text as Markdown (title, content, links).';
  readonly parameters = openUrlParameters;
  readonly #options: OpenUrlOptions;
  /** Connections whose every address is checked when it is connected to. */
  readonly #dispatcher: Agent | undefined;

  constructor(options: OpenUrlOptions = {}) {
    super(options);
    this.#options = options;
    this.#dispatcher = options.allowPrivateNetworks
      ? undefined
      : new Agent({ connect: { timeout: 10_000, lookup: publicOnlyLookup(options.resolver) } });
  }

  async run(context: ToolContext, args: z.infer<typeof openUrlParameters>): Promise<ToolOutput> {
    const url = new URL(args.url);
    const response = await httpRequest({
      method: 'GET',
      url,
      headers: {
        accept: 'text/html,application/xhtml+xml,text/plain;q=0.9',
        'user-agent': 'toolkit-agent open_url',
      },
      maxRedirects: 5,
      maxResponseBytes: this.#options.maxBytes ?? 3 * 1024 * 1024,
      timeouts: { headersMs: this.#options.timeoutMs ?? 20_000, bodyMs: this.#options.timeoutMs ?? 20_000 },
      checkUrl: (hop) => assertPublicUrl(hop, this.#options.allowPrivateNetworks, this.#options.resolver),
      ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}),
      signal: context.signal,
    });
    if (response.status < 200 || response.status >= 300) {
      throw errorForResponse(response, { method: 'GET', service: url.host, idempotent: true });
    }
    const type = response.headers['content-type'] ?? '';
    if (!/html|xml|text\//i.test(type)) {
      throw new UpstreamError(
        `${response.url} is ${type || 'not text'} (${response.body.length} bytes); open_url reads web pages.`,
      );
    }
    if (!/html/i.test(type)) return { text: response.text(), metadata: { url: response.url } };
    const [linkedom, readability] = await Promise.all([
      importOptional<{ parseHTML: typeof parseHTML }>('linkedom', FEATURE),
      importOptional<{ Readability: typeof Readability }>('@mozilla/readability', FEATURE),
    ]);
    // linkedom's DOM typings need the DOM lib; the little we read is typed here.
    const { document } = linkedom.parseHTML(response.text()) as unknown as { document: PageDocument };
    const article = new readability.Readability(document).parse();
    const title = article?.title ?? document.title ?? '';
    const markdown = article?.content
      ? await htmlToMarkdown(article.content, FEATURE, { codeBlockStyle: 'fenced' })
      : (document.body?.textContent ?? '').replace(/\s+\n/g, '\n').trim();
    return { text: `# ${title}\n\n${markdown}`.trim(), metadata: { url: response.url, title } };
  }
}
