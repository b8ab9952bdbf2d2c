import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { CredentialError, PermissionError, RateLimitError, ToolInputError } from '../../src/errors.ts';
import type { GmailPart } from '../../src/tools/google/mime.ts';
import { MailTool } from '../../src/tools/google/mail.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { discoveryValidator, GOOGLE_DISCOVERY_AVAILABLE } from '../support/providers/google-discovery.ts';
import { toolContext } from '../support/tool-context.ts';

const b64 = (text: string, encoding: BufferEncoding = 'utf8') =>
  Buffer.from(text, encoding).toString('base64url');
const headers = (pairs: Record<string, string>) =>
  Object.entries(pairs).map(([name, value]) => ({ name, value }));

/** Three messages the way Gmail's messages.get?format=full shapes them. */
const MESSAGES: Record<string, { threadId: string; snippet: string; payload: GmailPart }> = {
  latin1: {
    threadId: 't-latin1',
    snippet: 'Grüße aus Köln',
    payload: {
      mimeType: 'multipart/alternative',
      headers: headers({
        From: 'Jürgen <j@example.de>',
        Subject: 'Grüße',
        Date: 'Mon, 2 Nov 2026 09:00:00 +0100',
        'Message-ID': '<abc@example.de>',
      }),
      parts: [
        {
          mimeType: 'text/plain',
          headers: headers({ 'Content-Type': 'text/plain; charset="ISO-8859-1"' }),
          body: { size: 14, data: b64('Grüße aus Köln', 'latin1') },
        },
        {
          mimeType: 'text/html',
          headers: headers({ 'Content-Type': 'text/html; charset=ISO-8859-1' }),
          body: { size: 30, data: b64('<p>HTML version</p>', 'latin1') },
        },
      ],
    },
  },
  html: {
    threadId: 't-html',
    snippet: 'Your invoice',
    payload: {
      mimeType: 'text/html',
      headers: headers({
        From: 'billing@example.com',
        Subject: 'Invoice',
        'Content-Type': 'text/html; charset=UTF-8',
      }),
      body: {
        size: 80,
        data: b64(
          '<html><head><style>p{color:red}</style></head><body><p>Your <b>invoice</b> is €12</p></body></html>',
        ),
      },
    },
  },
  nested: {
    threadId: 't-nested',
    snippet: 'See attached',
    payload: {
      mimeType: 'multipart/mixed',
      headers: headers({
        From: 'ada@example.com',
        Subject: 'Report',
        'Message-ID': '<r1@example.com>',
        References: '<r0@example.com>',
      }),
      parts: [
        {
          mimeType: 'multipart/alternative',
          parts: [
            { mimeType: 'text/plain', body: { attachmentId: 'big-text', size: 120_000 } },
            { mimeType: 'text/html', body: { data: b64('<p>See attached</p>'), size: 19 } },
          ],
        },
        {
          mimeType: 'application/pdf',
          filename: 'report.pdf',
          headers: headers({ 'Content-Disposition': 'attachment; filename="report.pdf"' }),
          body: { attachmentId: 'pdf-1', size: 48_213 },
        },
      ],
    },
  },
};

describe.skipIf(!GOOGLE_DISCOVERY_AVAILABLE)(
  'mail_search against a Gmail stand-in that checks the discovery document',
  () => {
    let gmail: RecordingServer;
    const sent: Array<{
      path: string;
      body: { raw?: string; threadId?: string; message?: { raw: string; threadId?: string } };
    }> = [];
    const validate = discoveryValidator('gmail-v1.json');

    beforeEach(async () => {
      sent.length = 0;
      gmail = await startRecordingServer((request, response) => {
        const problem = validate(request.method, request.path, request.query);
        if (request.headers.authorization === 'Bearer ya29.expired')
          return json(response, 401, {
            error: { code: 401, message: 'Invalid Credentials', errors: [{ reason: 'authError' }] },
          });
        if (problem) return json(response, 400, { error: { code: 400, message: problem } });
        if (request.query.get('q') === 'busy')
          return json(
            response,
            429,
            { error: { code: 429, message: 'Too many requests' } },
            { 'retry-after': '7' },
          );
        if (request.method === 'POST') {
          const body = JSON.parse(request.body) as (typeof sent)[number]['body'];
          sent.push({ path: request.path, body });
          return request.path.endsWith('/drafts')
            ? json(response, 200, { id: 'r-1', message: { id: 'm-new', threadId: 't-new' } })
            : json(response, 200, { id: 'm-sent', threadId: body.threadId ?? 't-new' });
        }
        if (request.path === '/gmail/v1/users/me/messages') {
          const page = request.query.get('pageToken') === 'p2';
          return json(response, 200, {
            messages: page
              ? [{ id: 'nested', threadId: 't-nested' }]
              : [
                  { id: 'latin1', threadId: 't-latin1' },
                  { id: 'html', threadId: 't-html' },
                ],
            resultSizeEstimate: 3,
            ...(page ? {} : { nextPageToken: 'p2' }),
          });
        }
        const attachment = /\/messages\/(\w+)\/attachments\/([\w-]+)$/.exec(request.path);
        if (attachment) return json(response, 200, { size: 20, data: b64('Quarterly numbers: all up.') });
        const id = /\/messages\/(\w+)$/.exec(request.path)?.[1] ?? '';
        const message = MESSAGES[id];
        if (!message)
          return json(response, 404, {
            error: {
              code: 404,
              message: 'Requested entity was not found.',
              errors: [{ reason: 'notFound' }],
            },
          });
        const wanted = request.query.getAll('metadataHeaders');
        const payload =
          request.query.get('format') === 'metadata'
            ? {
                ...message.payload,
                parts: undefined,
                body: undefined,
                headers: message.payload.headers?.filter((h) => wanted.includes(h.name)),
              }
            : message.payload;
        return json(response, 200, { id, threadId: message.threadId, snippet: message.snippet, payload });
      });
    });
    afterEach(() => gmail.close());

    async function context(scopes?: string[], token = 'ya29.mail-secret') {
      const credentials = new InMemoryCredentialStore();
      await credentials.put({
        name: 'mail',
        type: 'oauth2',
        token,
        metadata: { base_url: gmail.url, ...(scopes ? { scopes } : {}) },
      });
      return toolContext(credentials);
    }

    it('searches through pages, then fetches From, Subject and Date for each hit', async () => {
      const { text, metadata } = await new MailTool().run(await context(), {
        action: 'search',
        query: 'from:ada',
        max_results: 5,
      });
      expect(text.split('\n')).toEqual([
        'latin1 | Mon, 2 Nov 2026 09:00:00 +0100 | Jürgen <j@example.de> | Grüße — Grüße aus Köln',
        'html |  | billing@example.com | Invoice — Your invoice',
        'nested |  | ada@example.com | Report — See attached',
      ]);
      expect((metadata as { messages: unknown[] }).messages).toHaveLength(3);
      expect(gmail.requests[0]!.query.get('q')).toBe('from:ada');
      expect(gmail.requests[1]!.query.get('pageToken')).toBe('p2');
      expect(gmail.requests[2]!.query.getAll('metadataHeaders')).toEqual(['From', 'Subject', 'Date']);
      expect(gmail.requests[0]!.headers.authorization).toBe('Bearer ya29.mail-secret');
    });

    it('reads ISO-8859-1 text, preferring the plain part of an alternative', async () => {
      const { text } = await new MailTool().run(await context(), { action: 'read', message_id: 'latin1' });
      expect(text).toContain('Grüße aus Köln');
      expect(text).not.toContain('HTML version');
      expect(text).toContain('Subject: Grüße');
    });

    it('turns HTML-only mail into text without its styles', async () => {
      const { text } = await new MailTool().run(await context(), { action: 'read', message_id: 'html' });
      expect(text).toContain('Your **invoice** is €12');
      expect(text).not.toContain('color:red');
    });

    it('walks nested multipart, fetches a large body by attachmentId, and lists attachments', async () => {
      const { text, metadata } = await new MailTool().run(await context(), {
        action: 'read',
        message_id: 'nested',
      });
      expect(text).toContain('Quarterly numbers: all up.');
      expect(text).toContain('- report.pdf (application/pdf, 48213 bytes)');
      expect((metadata as { attachments: unknown[] }).attachments).toEqual([
        { filename: 'report.pdf', mimeType: 'application/pdf', size: 48_213, attachmentId: 'pdf-1' },
      ]);
      expect(gmail.requests.map((r) => r.path)).toContain(
        '/gmail/v1/users/me/messages/nested/attachments/big-text',
      );
    });

    it('sends RFC 2822 with MIME-Version, UTF-8 and an RFC 2047 subject', async () => {
      const subject = 'Zusammenfassung der Überprüfung — Ergebnisse für das vierte Quartal 2026 ✓';
      await new MailTool().run(await context(), {
        action: 'send',
        to: 'ada@example.com',
        subject,
        body: 'Hallo Ada,\nalles gut. Grüße',
      });
      const raw = Buffer.from(sent[0]!.body.raw!, 'base64url').toString('utf8');
      const [head, body] = raw.split('\r\n\r\n');
      expect(head).toContain('MIME-Version: 1.0');
      expect(head).toContain('Content-Type: text/plain; charset=UTF-8');
      const words = [...head!.matchAll(/=\?UTF-8\?B\?([^?]+)\?=/g)];
      expect(words.length).toBeGreaterThan(1);
      for (const [word] of words) expect(word.length).toBeLessThanOrEqual(75);
      expect(words.map(([, data]) => Buffer.from(data!, 'base64').toString('utf8')).join('')).toBe(subject);
      expect(Buffer.from(body!.replace(/\r\n/g, ''), 'base64').toString('utf8')).toBe(
        'Hallo Ada,\r\nalles gut. Grüße',
      );
      expect(sent[0]!.path).toBe('/gmail/v1/users/me/messages/send');
    });

    it('a reply stays in the thread with In-Reply-To and References', async () => {
      const { text } = await new MailTool().run(await context(), {
        action: 'draft',
        message_id: 'nested',
        body: 'Thanks!',
      });
      const draft = sent[0]!.body.message!;
      expect(draft.threadId).toBe('t-nested');
      const raw = Buffer.from(draft.raw, 'base64url').toString('utf8');
      expect(raw).toContain('To: ada@example.com\r\n');
      expect(raw).toContain('Subject: Re: Report\r\n');
      expect(raw).toContain('In-Reply-To: <r1@example.com>\r\n');
      expect(raw).toContain('References: <r0@example.com> <r1@example.com>\r\n');
      expect(text).toBe('Draft r-1 saved for ada@example.com: "Re: Report"');
    });

    it('refuses header injection before any request', async () => {
      const tool = new MailTool();
      for (const args of [
        { to: 'ada@example.com\r\nBcc: everyone@example.com', subject: 'hi' },
        { to: 'ada@example.com', subject: 'hi\nBcc: everyone@example.com' },
      ]) {
        await expect(tool.run(await context(), { action: 'send', body: 'x', ...args })).rejects.toThrow(
          ToolInputError,
        );
      }
      expect(gmail.requests).toHaveLength(0);
    });

    it('checks scopes, and reports 401, 404 and 429 clearly', async () => {
      const sendOnly = await context(['https://www.googleapis.com/auth/gmail.send']);
      const error = await new MailTool()
        .run(sendOnly, { action: 'draft', to: 'a@b.c', subject: 's', body: 'b' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PermissionError);
      expect((error as Error).message).toMatch(/needs the scope gmail.compose/);
      await expect(new MailTool().run(sendOnly, { action: 'search', query: 'x' })).rejects.toThrow(
        /gmail.readonly/,
      );
      expect(gmail.requests).toHaveLength(0);
      await expect(
        new MailTool().run(await context(), { action: 'read', message_id: 'gone' }),
      ).rejects.toThrow(/not found/i);
      const limited = await new MailTool()
        .run(await context(), { action: 'search', query: 'busy' })
        .catch((e: unknown) => e);
      expect(limited).toBeInstanceOf(RateLimitError);
      expect((limited as RateLimitError).retryAfterMs).toBe(7_000);
      const rejected = await new MailTool()
        .run(await context(undefined, 'ya29.expired'), { action: 'search', query: 'x' })
        .catch((e: unknown) => e);
      expect(rejected).toBeInstanceOf(CredentialError);
      expect((rejected as Error).message).toMatch(/Invalid Credentials[\s\S]*"mail" was rejected/);
    });
  },
);
