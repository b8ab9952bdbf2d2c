import type { AgentDefinition } from '../agent/definition.ts';
import type { AgentClient } from '../client/agent-client.ts';
import { ConfigurationError } from '../errors.ts';
import { MissingDependencyError } from '../optional-dependency.ts';
import { createChatHandler } from '../ui-stream/chat-handler.ts';
import { accessRefusal } from './access.ts';
import { describeAgents } from './describe-agents.ts';
import { compareSaved, EvalReportNotFound, listEvalReports, readReport } from './evals-api.ts';
import type { MemoryStore } from '../memory/types.ts';
import { MemoryRequestError, StudioMemories } from './memory-api.ts';
import { pageFile, pageHtml } from './page-files.ts';
import { decideCall, listRuns, runTimeline, waitingCalls } from './runs-api.ts';
import { costReport, runFigures, type StudioUsage } from './usage-api.ts';

/** What {@link createStudio} shows and where it reads it. */
export interface StudioOptions {
  /** The client that reaches the workers (their task queue is the one listed). */
  client: AgentClient;
  /** The agents' definitions, as the workers serve them: the Agents view and its chats. Default: none. */
  agents?: Record<string, AgentDefinition>;
  /**
   * A token every API request must carry (`Authorization: Bearer <token>`; the page takes it from
   * its URL's `#token=`). Without one the studio answers only requests addressed to 127.0.0.1 or
   * localhost: give one whenever the server is reachable from another machine.
   */
  token?: string;
  /** Where the studio is mounted in your server (default `/`), ending in `/`. */
  basePath?: string;
  /** The usage ledger, prices and quotas of the Cost view. */
  usage?: StudioUsage;
  /** The folder of saved eval reports (`toolkit-agent eval ... --json > evals/<name>.json`). Default: none. */
  evalsFolder?: string;
  /** The Temporal UI (e.g. `http://127.0.0.1:8233`): each run links to its workflow there. */
  temporalUiUrl?: string;
  /** The namespace of the Temporal UI links (default `default`). */
  namespace?: string;
  /** The workers' memory store, where agents without a `memoryStore` of their own keep working memory (the Memory view). */
  memoryStore?: MemoryStore;
}

/** A refusal the page is told as JSON `{ error }`. */
class StudioRequestError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The studio as a web-standard handler (`(Request) => Promise<Response>`): a local web page to look
 * at agents (definitions and a chat on a durable session), runs (list and timeline, live), the
 * approvals and authorizations waiting across runs, cost from the usage ledger, and eval reports.
 * Mount it in any server that speaks `Request`/`Response` (Node's with a small adapter, Deno, Bun,
 * Hono); `toolkit-agent studio` serves it on 127.0.0.1. The page is prebuilt (`dist/studio/page.js`).
 * No secret reaches the page: it shows what the runs' events and the agents' definitions say, and
 * those never carry one.
 *
 * @example
 * const studio = createStudio({ client: agents, agents: { assistant }, token: process.env.STUDIO_TOKEN });
 * Bun.serve({ port: 4000, fetch: studio });
 */
export function createStudio(options: StudioOptions): (request: Request) => Promise<Response> {
  const base = options.basePath ?? '/';
  if (!base.startsWith('/') || !base.endsWith('/'))
    throw new ConfigurationError(
      `createStudio: basePath must start and end with "/" (got ${JSON.stringify(base)}).`,
    );
  if (options.token !== undefined && options.token.length < 16)
    throw new ConfigurationError(
      'createStudio: a token must have at least 16 characters (try crypto.randomUUID()).',
    );
  const agents = options.agents ?? {};
  const chats = new Map<string, (request: Request) => Promise<Response>>();
  const chatOf = (agent: string) => {
    if (!Object.hasOwn(agents, agent))
      throw new StudioRequestError(404, `No agent named ${agent} in this studio.`);
    let chat = chats.get(agent);
    if (!chat) {
      chat = createChatHandler({
        client: options.client,
        agent,
        sessionId: (_request, body) => `studio-${agent}-${body.id}`,
      });
      chats.set(agent, chat);
    }
    return chat;
  };
  const memories = new StudioMemories(agents, options.memoryStore);
  const evalsFolder = () => {
    if (!options.evalsFolder)
      throw new StudioRequestError(404, 'This studio has no evals folder (evalsFolder).');
    return options.evalsFolder;
  };

  const api = async (request: Request, path: string, params: URLSearchParams): Promise<Response> => {
    const { client } = options;
    const get = request.method === 'GET';
    let m: RegExpExecArray | null;
    if (get && path === 'info')
      return Response.json({
        taskQueue: client.taskQueue,
        namespace: options.namespace ?? 'default',
        temporalUiUrl: options.temporalUiUrl ?? null,
        evals: Boolean(options.evalsFolder),
      });
    if (get && path === 'agents') return Response.json(describeAgents(agents));
    if ((m = /^chat\/([^/]+)(\/.*)?$/.exec(path))) return chatOf(decodeURIComponent(m[1]!))(request);
    if (get && path === 'runs') {
      const runs = await listRuns(client, params);
      const oldest = runs.at(-1)?.startTime ?? new Date();
      const figures = await runFigures(
        options.usage ?? {},
        runs.map((run) => run.workflowId),
        oldest,
      );
      return Response.json(runs.map((run) => ({ ...run, ...figures[run.workflowId] })));
    }
    if (get && (m = /^runs\/([^/]+)$/.exec(path)))
      return Response.json(await runTimeline(client, decodeURIComponent(m[1]!)));
    if (request.method === 'POST' && (m = /^runs\/([^/]+)\/calls\/([^/]+)$/.exec(path))) {
      const decision = (await request.json().catch(() => undefined)) as Record<string, unknown> | undefined;
      if (!decision || typeof decision.approved !== 'boolean')
        throw new StudioRequestError(
          400,
          'Send { "approved": true } or { "approved": false, "reason": "..." }.',
        );
      await decideCall(client, decodeURIComponent(m[1]!), decodeURIComponent(m[2]!), decision);
      return new Response(null, { status: 204 });
    }
    if (get && path === 'waiting') return Response.json(await waitingCalls(client));
    if (get && path === 'cost') return Response.json(await costReport(client, options.usage ?? {}, params));
    if (get && path === 'evals') return Response.json(await listEvalReports(evalsFolder()));
    if (get && path === 'evals/compare')
      return Response.json(
        await compareSaved(
          evalsFolder(),
          params.get('baseline') ?? '',
          params.get('current') ?? '',
          options.usage?.pricing,
        ),
      );
    if (get && (m = /^evals\/([^/]+)$/.exec(path)))
      return Response.json(await readReport(evalsFolder(), decodeURIComponent(m[1]!)));
    if (get && path === 'memory') return Response.json(memories.agents());
    if ((m = /^memory\/([^/]+)(\/forget)?$/.exec(path))) {
      const agent = decodeURIComponent(m[1]!);
      if (get && !m[2]) return Response.json(await memories.read(agent, params));
      if (request.method === 'POST' && m[2]) return Response.json(await memories.forget(agent, params));
    }
    throw new StudioRequestError(404, `No studio route ${request.method} ${base}api/${path}.`);
  };

  return async (request) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(base)) return Response.json({ error: 'Not the studio.' }, { status: 404 });
    const path = url.pathname.slice(base.length);
    try {
      if (request.method === 'GET' && path === '')
        return new Response(pageHtml(base), {
          headers: { 'content-type': 'text/html; charset=utf-8', ...SAFE },
        });
      if (request.method === 'GET' && path === 'studio.js')
        return new Response(await pageFile('page.js'), {
          headers: { 'content-type': 'text/javascript; charset=utf-8' },
        });
      if (request.method === 'GET' && path === 'studio.css')
        return new Response(await pageFile('page.css'), {
          headers: { 'content-type': 'text/css; charset=utf-8' },
        });
      const refused = accessRefusal(request, options.token);
      if (refused) throw new StudioRequestError(refused.status, refused.message);
      if (!path.startsWith('api/')) throw new StudioRequestError(404, `No studio page ${url.pathname}.`);
      return await api(request, path.slice('api/'.length), url.searchParams);
    } catch (error) {
      if (error instanceof StudioRequestError)
        return Response.json({ error: error.message }, { status: error.status });
      // A chat without the `ai` package: the message says what to install.
      if (error instanceof MissingDependencyError)
        return Response.json({ error: error.message }, { status: 501 });
      if (error instanceof MemoryRequestError || error instanceof ConfigurationError)
        return Response.json({ error: error.message }, { status: 400 });
      if (error instanceof EvalReportNotFound)
        return Response.json({ error: error.message }, { status: 404 });
      return Response.json({ error: (error as Error).message }, { status: 500 });
    }
  };
}

/** The page is never framed by another site, and loads scripts from itself only. */
const SAFE = {
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
  'referrer-policy': 'no-referrer',
};
