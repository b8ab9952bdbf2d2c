import { z } from 'zod';
import type { PolledItem, PollResult } from '../../common/poller.ts';
import { UpstreamError } from '../../errors.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../tools/connector-base.ts';
import { googleRequest, requireScope } from '../../tools/google/request.ts';

interface HistoryPage {
  history?: Array<{ messagesAdded?: Array<{ message: { id: string; labelIds?: string[] } }> }>;
  historyId?: string;
  nextPageToken?: string;
}

interface MessageMetadata {
  id: string;
  snippet?: string;
  payload?: { headers?: Array<{ name: string; value: string }> };
}

const gmailPollSourceParameters = z.object({ cursor: z.string().optional() });

/**
 * New Gmail messages since a `historyId` (`users.history.list`, messageAdded, INBOX), with their
 * subject, sender and snippet (`users.messages.get`, metadata). The first poll starts from now
 * (`users.getProfile`); a cursor Gmail no longer keeps (404) starts from now again.
 */
export class GmailPollSource extends BaseConnectorTool<typeof gmailPollSourceParameters> {
  readonly name = 'gmail_poller';
  readonly description = 'Polls Gmail for new messages (used by pollers, not offered to models)';
  readonly parameters = gmailPollSourceParameters;
  protected override readonly defaultCredentialKey = 'mail';
  protected override readonly credentialTypes = ['oauth2', 'bearer'] as const;

  async run(context: ToolContext, args: z.infer<typeof gmailPollSourceParameters>): Promise<ToolOutput> {
    const result = await this.poll(context, args.cursor);
    return { text: `${result.items.length} new`, metadata: { ...result } };
  }

  async poll(context: ToolContext, cursor: string | undefined): Promise<PollResult> {
    const record = await this.getCredential(context);
    requireScope(record, ['gmail.readonly', 'gmail.modify', 'mail.google.com'], 'Polling Gmail');
    const request = (path: string, query: Record<string, string | string[] | undefined> = {}) =>
      googleRequest(record, context, { method: 'GET', path, query, service: 'Gmail', idempotent: true });
    const now = async () =>
      String(((await request('/gmail/v1/users/me/profile')).json as { historyId: string }).historyId);
    if (!cursor) return { items: [], cursor: await now() };
    const ids: string[] = [];
    let latest = cursor;
    let pageToken: string | undefined;
    do {
      let page: HistoryPage;
      try {
        page = (
          await request('/gmail/v1/users/me/history', {
            startHistoryId: cursor,
            historyTypes: 'messageAdded',
            labelId: 'INBOX',
            pageToken,
          })
        ).json as HistoryPage;
      } catch (error) {
        // Gmail keeps history for about a week: an older cursor is a 404, and polling starts over from now.
        if (error instanceof UpstreamError && error.status === 404) return { items: [], cursor: await now() };
        throw error;
      }
      for (const entry of page.history ?? [])
        for (const added of entry.messagesAdded ?? []) ids.push(added.message.id);
      latest = page.historyId ?? latest;
      pageToken = page.nextPageToken;
    } while (pageToken);
    const items: PolledItem[] = [];
    for (const id of [...new Set(ids)]) {
      const message = (
        await request(`/gmail/v1/users/me/messages/${encodeURIComponent(id)}`, {
          format: 'metadata',
          metadataHeaders: ['Subject', 'From'],
        })
      ).json as MessageMetadata;
      const header = (name: string) =>
        message.payload?.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value ?? '';
      items.push({
        id,
        title: header('Subject') || '(no subject)',
        text: message.snippet ?? '',
        url: `https://mail.google.com/mail/u/0/#inbox/${id}`,
        fields: { from: header('From') },
      });
    }
    return { items, cursor: latest };
  }
}
