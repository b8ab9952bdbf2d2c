/**
 * The `toolkit-agent/tools/mail` entry point.
 *
 * @module toolkit-agent/tools/mail
 */
import '../../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
import type { CredentialRecord, CredentialStore } from '../../credentials/types.ts';
import { z } from 'zod';
import { ToolInputError } from '../../errors.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';
import { collectPages } from '../../http/collect-pages.ts';
import { googleRequest, requireScope } from './request.ts';
import { composeMessage, header, readMessage, type GmailPart } from './mime.ts';

const parameters = z.object({
  action: z.enum(['search', 'read', 'draft', 'send']),
  query: z
    .string()
    .optional()
    .describe('search: Gmail search syntax, e.g. from:ada@example.com newer_than:7d invoice'),
  message_id: z.string().optional().describe('read: the message; draft/send: the message to reply to'),
  to: z.string().optional().describe('draft/send: recipient (default on a reply: the original sender)'),
  subject: z.string().optional().describe('draft/send (default on a reply: "Re: " + the original)'),
  body: z.string().optional().describe('draft/send: plain text'),
  max_results: z.number().int().min(1).max(50).optional().describe('search: default 10, at most 50'),
});

interface GmailMessage {
  id: string;
  threadId: string;
  snippet?: string;
  labelIds?: string[];
  payload?: GmailPart;
}

/** A GET under the Gmail API with the run's record, answering the parsed body. */
type GmailGet = <T>(path: string, query?: Record<string, string | string[]>) => Promise<T>;

const READ_SCOPES = ['gmail.readonly', 'gmail.modify', 'https://mail.google.com/'];
const SEND_SCOPES = ['gmail.send', 'gmail.compose', 'gmail.modify', 'https://mail.google.com/'];
const METADATA_CONCURRENCY = 5;
const DRAFT_SCOPES = ['gmail.compose', 'gmail.modify', 'https://mail.google.com/'];

export interface MailToolOptions {
  credentialKey?: string;
  credentialStore?: CredentialStore;
}

/**
 * `mail_search` (Gmail API v1, docs/connectors.md): `search` with Gmail's query syntax (one line per hit with
 * its id, sender, subject and date), `read` a message as text with its attachments listed, and
 * `draft` or `send` plain-text mail, as a reply in the thread when `message_id` is given.
 */
export class MailTool extends BaseConnectorTool<typeof parameters> {
  readonly name = 'mail_search';
  readonly description =
    'Search mail (Gmail syntax), read a message by id, or draft/send a message or a reply.';
  readonly parameters = parameters;
  protected override readonly defaultCredentialKey = 'mail';
  protected override readonly loginCommand = 'auth google --services mail';
  protected override readonly credentialTypes = ['oauth2', 'bearer'] as const;

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const record = await this.getCredential(context);
    const get: GmailGet = async <T>(path: string, query?: Record<string, string | string[]>) =>
      (await googleRequest(record, context, { method: 'GET', path, query, service: 'Gmail' })).json as T;
    switch (args.action) {
      case 'search':
        requireScope(record, READ_SCOPES, 'Searching mail');
        return search(get, args.query ?? '', args.max_results ?? 10);
      case 'read': {
        requireScope(record, READ_SCOPES, 'Reading mail');
        if (!args.message_id) throw new ToolInputError('read needs message_id (from a search).');
        const id = encodeURIComponent(args.message_id);
        const message = await get<GmailMessage>(`/gmail/v1/users/me/messages/${id}`, { format: 'full' });
        const { text, attachments } = await readMessage(message.payload ?? {}, async (attachmentId) => {
          const part = await get<{ data?: string }>(
            `/gmail/v1/users/me/messages/${id}/attachments/${encodeURIComponent(attachmentId)}`,
          );
          return part.data ?? '';
        });
        const headers = ['From', 'To', 'Date', 'Subject']
          .map((name) => [name, header(message.payload, name)] as const)
          .filter(([, value]) => value);
        const listed = attachments.map((a) => `- ${a.filename} (${a.mimeType}, ${a.size} bytes)`);
        return {
          text: [
            ...headers.map(([name, value]) => `${name}: ${value}`),
            '',
            text || '(no text)',
            ...(listed.length ? ['', 'Attachments:', ...listed] : []),
          ].join('\n'),
          metadata: {
            id: message.id,
            threadId: message.threadId,
            headers: Object.fromEntries(headers),
            attachments,
          },
        };
      }
      default:
        return this.#compose(context, record, args, get);
    }
  }

  async #compose(
    context: ToolContext,
    record: CredentialRecord,
    args: z.infer<typeof parameters>,
    get: GmailGet,
  ): Promise<ToolOutput> {
    const drafting = args.action === 'draft';
    requireScope(record, drafting ? DRAFT_SCOPES : SEND_SCOPES, drafting ? 'Drafting mail' : 'Sending mail');
    let reply: { threadId: string; inReplyTo?: string; references?: string; to?: string; subject?: string } =
      { threadId: '' };
    if (args.message_id) {
      const original = await get<GmailMessage>(
        `/gmail/v1/users/me/messages/${encodeURIComponent(args.message_id)}`,
        { format: 'metadata', metadataHeaders: ['Message-ID', 'References', 'Subject', 'From', 'Reply-To'] },
      );
      const messageId = header(original.payload, 'Message-ID');
      const subject = header(original.payload, 'Subject') ?? '';
      reply = {
        threadId: original.threadId,
        inReplyTo: messageId,
        references:
          [header(original.payload, 'References'), messageId].filter(Boolean).join(' ') || undefined,
        to: header(original.payload, 'Reply-To') ?? header(original.payload, 'From'),
        subject: /^re:/i.test(subject) ? subject : `Re: ${subject}`,
      };
    }
    const to = args.to ?? reply.to;
    const subject = args.subject ?? reply.subject;
    if (!to || subject === undefined || args.body === undefined)
      throw new ToolInputError(`${args.action} needs to, subject and body (a reply needs only body).`);
    const raw = composeMessage({
      to,
      subject,
      body: args.body,
      inReplyTo: reply.inReplyTo,
      references: reply.references,
    });
    const message = { raw, ...(reply.threadId ? { threadId: reply.threadId } : {}) };
    // Gmail has no idempotency key: a send that may have gone out is never repeated by the HTTP layer.
    const { json } = await googleRequest(record, context, {
      method: 'POST',
      path: drafting ? '/gmail/v1/users/me/drafts' : '/gmail/v1/users/me/messages/send',
      body: drafting ? { message } : message,
      service: 'Gmail',
    });
    const result = json as { id: string; threadId?: string; message?: { id: string; threadId: string } };
    const threadId = result.threadId ?? result.message?.threadId;
    return {
      text: drafting
        ? `Draft ${result.id} saved for ${to}: "${subject}"`
        : `Sent "${subject}" to ${to} (id ${result.id}, thread ${threadId})`,
      metadata: { id: result.id, threadId, to, subject, reply: Boolean(args.message_id) },
    };
  }
}

async function search(get: GmailGet, query: string, max: number): Promise<ToolOutput> {
  const ids = await collectPages<{ id: string; threadId: string }>(max, async (pageToken, wanted) => {
    const page = await get<{ messages?: Array<{ id: string; threadId: string }>; nextPageToken?: string }>(
      '/gmail/v1/users/me/messages',
      { ...(query ? { q: query } : {}), maxResults: String(wanted), ...(pageToken ? { pageToken } : {}) },
    );
    return { items: page.messages, next: page.nextPageToken };
  });
  // Metadata for the hits, a few requests at a time (Gmail has no batch read in its REST API).
  const messages: GmailMessage[] = [];
  for (let i = 0; i < ids.length; i += METADATA_CONCURRENCY) {
    const batch = ids.slice(i, i + METADATA_CONCURRENCY);
    messages.push(
      ...(await Promise.all(
        batch.map(({ id }) =>
          get<GmailMessage>(`/gmail/v1/users/me/messages/${encodeURIComponent(id)}`, {
            format: 'metadata',
            metadataHeaders: ['From', 'Subject', 'Date'],
          }),
        ),
      )),
    );
  }
  const hits = messages.map((m) => ({
    id: m.id,
    threadId: m.threadId,
    from: header(m.payload, 'From') ?? '',
    subject: header(m.payload, 'Subject') ?? '(no subject)',
    date: header(m.payload, 'Date') ?? '',
    snippet: m.snippet ?? '',
  }));
  return {
    text: hits.length
      ? hits.map((h) => `${h.id} | ${h.date} | ${h.from} | ${h.subject} — ${h.snippet}`).join('\n')
      : `No mail matches "${query}".`,
    metadata: { messages: hits },
  };
}
