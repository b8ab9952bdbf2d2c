/**
 * The `toolkit-agent/tools/chat` entry point.
 *
 * @module toolkit-agent/tools/chat
 */
import '../../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
import { z } from 'zod';
import type { CredentialRecord } from '../../credentials/types.ts';
import {
  CredentialError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ToolInputError,
  UpstreamError,
} from '../../errors.ts';
import { errorForResponse } from '../../http/classify.ts';
import { httpRequest } from '../../http/request.ts';
import { parseRetryAfter } from '../../http/retry-after.ts';
import { noteWriteRefused } from '../call-scope.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';

const parameters = z.object({
  action: z.enum(['search', 'post']),
  query: z
    .string()
    .optional()
    .describe('search: Slack search syntax, e.g. "deploy in:#ops after:2026-11-01"'),
  channel: z.string().optional().describe('post: channel id (C0123...) or #name'),
  text: z.string().optional().describe('post: the message'),
  thread_ts: z.string().optional().describe('post: reply in this thread'),
  count: z.number().int().min(1).max(100).optional().describe('search: results (default 10)'),
});

/** What Slack's `ok:false` errors mean for the person reading the tool's answer. */
const SLACK_ERRORS: Record<string, (method: string, body: SlackErrorBody) => Error> = {
  not_allowed_token_type: (method) =>
    new PermissionError(
      `Slack refused ${method} with this kind of token (not_allowed_token_type). Searching needs a user ` +
        'token (xoxp-, or xoxe.xoxp- with token rotation) with the search:read scope; a bot token ' +
        '(xoxb-, xoxe.xoxb-) cannot search. Authorize with user scope search:read (ChatOAuthHelper does) ' +
        'so the record holds the user token as metadata.user_token.',
    ),
  missing_scope: (method, body) =>
    new PermissionError(`The chat token lacks a scope ${method} needs; authorize again with it.`, {
      authorization: {
        credentialKey: 'chat',
        reason: 'insufficient_scope',
        ...(body.needed ? { scopes: body.needed.split(',').filter(Boolean) } : {}),
      },
    }),
  invalid_auth: () =>
    new CredentialError('Slack rejected the chat token (invalid_auth); store a valid one.', {
      rejected: true,
    }),
  token_expired: () =>
    new CredentialError('The chat token expired (token_expired); authorize again to rotate it.', {
      rejected: true,
    }),
  token_revoked: () => new CredentialError('The chat token was revoked; authorize again.'),
  channel_not_found: () => new NotFoundError('That channel does not exist, or the bot cannot see it.'),
  not_in_channel: () =>
    new PermissionError('The bot is not a member of that channel: invite it (/invite @bot) first.'),
};

/** Slack's answer when `ok` is false; `needed` names the scopes a `missing_scope` call lacks. */
interface SlackErrorBody {
  ok: boolean;
  error?: string;
  needed?: string;
}

interface SlackMessage {
  ts: string;
  text: string;
  user?: string;
  username?: string;
  channel?: { id: string; name: string };
  permalink?: string;
}

/**
 * `chat` (Slack Web API, docs/connectors.md): `search` messages (with the user token: `metadata.user_token`
 * from ChatOAuthHelper, else the record's token, tried as is) and `post` to a channel by id or `#name` (resolved through
 * conversations.list and cached), optionally in a thread.
 */
export class ChatTool extends BaseConnectorTool<typeof parameters> {
  readonly name = 'chat';
  readonly description = 'Search team chat messages, or post a message to a channel (Slack).';
  readonly parameters = parameters;
  protected override readonly defaultCredentialKey = 'chat';
  protected override readonly loginCommand = 'auth slack';
  protected override readonly credentialTypes = ['oauth2', 'bearer'] as const;
  readonly #channels = new Map<string, { ids: Map<string, string>; expires: number }>();

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const record = await this.getCredential(context);
    if (args.action === 'search') {
      if (!args.query?.trim()) throw new ToolInputError('search needs a query.');
      // The user token when the record has one; else the record's own token, whatever its prefix
      // (token rotation issues xoxe.xoxp- user tokens): Slack says if it cannot search.
      const userToken =
        typeof record.metadata?.user_token === 'string' ? record.metadata.user_token : record.token;
      const body = (await slack(
        record,
        context,
        'search.messages',
        { query: args.query, count: args.count ?? 10, sort: 'timestamp' },
        userToken,
      )) as {
        messages?: { matches?: SlackMessage[]; total?: number };
      };
      const matches = body.messages?.matches ?? [];
      const lines = matches.map(
        (m) =>
          `#${m.channel?.name ?? '?'} ${m.username ?? m.user ?? '?'} (ts ${m.ts}): ${m.text.slice(0, 300)}`,
      );
      return {
        text: lines.length ? lines.join('\n') : `No message matches "${args.query}".`,
        metadata: { matches },
      };
    }
    if (!args.channel || !args.text) throw new ToolInputError('post needs channel and text.');
    const channel = args.channel.startsWith('#')
      ? await this.#channelId(record, context, args.channel.slice(1))
      : args.channel;
    const body = (await slack(record, context, 'chat.postMessage', {
      channel,
      text: args.text,
      ...(args.thread_ts ? { thread_ts: args.thread_ts } : {}),
    })) as { channel: string; ts: string };
    return {
      text: `Posted to ${args.channel} (ts ${body.ts}).`,
      metadata: { channel: body.channel, ts: body.ts },
    };
  }

  /** `#name` → channel id, through conversations.list (all pages), cached for 10 minutes per credential. */
  async #channelId(record: CredentialRecord, context: ToolContext, name: string): Promise<string> {
    const key = `${context.tenant ?? ''}:${record.name}`;
    const cached = this.#channels.get(key);
    if (cached && cached.expires > Date.now() && cached.ids.has(name)) return cached.ids.get(name)!;
    const ids = new Map<string, string>();
    let cursor = '';
    for (let page = 0; page < 50; page++) {
      const body = (await slack(record, context, 'conversations.list', {
        types: 'public_channel,private_channel',
        exclude_archived: true,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      })) as { channels?: Array<{ id: string; name: string }>; response_metadata?: { next_cursor?: string } };
      for (const channel of body.channels ?? []) ids.set(channel.name, channel.id);
      cursor = body.response_metadata?.next_cursor ?? '';
      if (!cursor || ids.has(name)) break;
    }
    this.#channels.set(key, { ids, expires: Date.now() + 10 * 60_000 });
    const id = ids.get(name);
    if (!id) throw new NotFoundError(`No channel #${name} that the bot can see.`);
    return id;
  }
}

async function slack(
  record: CredentialRecord,
  context: ToolContext,
  method: string,
  params: Record<string, unknown>,
  token = record.token,
): Promise<unknown> {
  const base = typeof record.metadata?.base_url === 'string' ? record.metadata.base_url : 'https://slack.com';
  const post = method === 'chat.postMessage';
  const url = new URL(`/api/${method}`, base);
  if (!post) for (const [name, value] of Object.entries(params)) url.searchParams.set(name, String(value));
  context.secrets.add(token);
  const response = await httpRequest({
    method: post ? 'POST' : 'GET',
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(post ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    },
    ...(post ? { body: JSON.stringify(params) } : {}),
    secrets: context.secrets,
    signal: context.signal,
  });
  if (response.status === 429)
    throw new RateLimitError(`Slack rate-limited ${method}.`, {
      retryAfterMs: parseRetryAfter(response.headers),
    });
  if (response.status !== 200)
    throw errorForResponse(response, {
      method: post ? 'POST' : 'GET',
      service: 'Slack',
      idempotent: !post,
      credentialKey: 'chat',
    });
  const body = response.json() as SlackErrorBody;
  if (!body.ok) {
    const known = body.error ? SLACK_ERRORS[body.error] : undefined;
    const error = known
      ? known(method, body)
      : new UpstreamError(`Slack ${method} failed: ${body.error ?? 'unknown error'}.`);
    // Slack refused the token (with HTTP 200): the post was not made, so it may be repeated.
    if (post && error instanceof CredentialError && error.rejected) noteWriteRefused();
    throw error;
  }
  return body;
}
