import { json, startRecordingServer, type RecordingServer } from '../http-server.ts';

interface StoredMessage {
  id: string;
  historyId: number;
  subject: string;
  from: string;
  snippet: string;
}

/**
 * A Gmail stand-in for pollers (the Gmail API's shapes): `users.getProfile` (the mailbox's
 * historyId), `users.history.list` (messageAdded records after `startHistoryId`, paged two at a
 * time, 404 for a historyId it no longer keeps) and `users.messages.get` with `format=metadata`.
 * Requests need `Authorization: Bearer <token>`. `deliver` adds messages to the inbox.
 */
export async function startGmailHistoryServer(
  token: string,
): Promise<RecordingServer & { deliver(...subjects: string[]): string[]; messages: StoredMessage[] }> {
  let historyId = 1000;
  const messages: StoredMessage[] = [];
  const server = await startRecordingServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${token}`) {
      return json(response, 401, {
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials.',
          status: 'UNAUTHENTICATED',
        },
      });
    }
    if (request.path === '/gmail/v1/users/me/profile') {
      return json(response, 200, {
        emailAddress: 'me@example.com',
        messagesTotal: messages.length,
        historyId: String(historyId),
      });
    }
    if (request.path === '/gmail/v1/users/me/history') {
      const start = Number(request.query.get('startHistoryId'));
      if (!Number.isFinite(start) || start < 900) {
        return json(response, 404, {
          error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' },
        });
      }
      const after = messages.filter((m) => m.historyId > start);
      const offset = Number(request.query.get('pageToken') ?? 0);
      const page = after.slice(offset, offset + 2);
      return json(response, 200, {
        ...(page.length
          ? {
              history: page.map((m) => ({
                id: String(m.historyId),
                messagesAdded: [{ message: { id: m.id, labelIds: ['INBOX'] } }],
              })),
            }
          : {}),
        historyId: String(historyId),
        ...(offset + 2 < after.length ? { nextPageToken: String(offset + 2) } : {}),
      });
    }
    const get = /^\/gmail\/v1\/users\/me\/messages\/([\w-]+)$/.exec(request.path);
    const message = get && messages.find((m) => m.id === get[1]);
    if (message) {
      return json(response, 200, {
        id: message.id,
        threadId: message.id,
        snippet: message.snippet,
        payload: {
          headers: [
            { name: 'Subject', value: message.subject },
            { name: 'From', value: message.from },
          ],
        },
      });
    }
    return json(response, 404, { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } });
  });
  return Object.assign(server, {
    messages,
    deliver(...subjects: string[]): string[] {
      return subjects.map((subject) => {
        historyId += 1;
        const id = `msg${historyId.toString(16)}`;
        messages.push({ id, historyId, subject, from: 'Ada <ada@example.com>', snippet: `About ${subject}` });
        return id;
      });
    },
  });
}
