import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { CalendarTool } from '../../src/tools/google/calendar.ts';
import { FileDriveTool } from '../../src/tools/google/file-drive.ts';
import { MailTool } from '../../src/tools/google/mail.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { discoveryValidator, GOOGLE_DISCOVERY_AVAILABLE } from '../support/providers/google-discovery.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';

const TOKENS = {
  mail: 'ya29.canary-mail-0001',
  calendar: 'ya29.canary-calendar-0002',
  file_drive: 'ya29.canary-drive-0003',
};

describe.skipIf(!GOOGLE_DISCOVERY_AVAILABLE)('the Google connectors in one real agent run', () => {
  let env: TestWorker;
  let google: RecordingServer;
  const created = new Set<string>();
  let loseFirstCreate = true;

  beforeAll(async () => {
    const validators = {
      gmail: discoveryValidator('gmail-v1.json'),
      calendar: discoveryValidator('calendar-v3.json'),
      drive: discoveryValidator('drive-v3.json'),
    };
    const tokenFor = { gmail: TOKENS.mail, calendar: TOKENS.calendar, drive: TOKENS.file_drive };
    google = await startRecordingServer((request, response) => {
      const api =
        (['gmail', 'drive'] as const).find((name) => request.path.startsWith(`/${name}/`)) ?? 'calendar';
      const problem = validators[api](request.method, request.path, request.query);
      if (problem) return json(response, 400, { error: { code: 400, message: problem } });
      if (request.headers.authorization !== `Bearer ${tokenFor[api]}`)
        return json(response, 401, { error: { code: 401, message: 'Invalid Credentials' } });
      if (api === 'drive') {
        if (request.path.endsWith('/export')) {
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.end('Agenda: the launch.');
          return;
        }
        return json(response, 200, {
          id: 'd1',
          name: 'Agenda',
          mimeType: 'application/vnd.google-apps.document',
        });
      }
      if (api === 'calendar' && request.method === 'GET')
        return json(response, 200, { id: request.path.split('/').pop(), summary: 'Meet Ada' });
      if (api === 'calendar') {
        const event = JSON.parse(request.body) as { id: string; summary: string };
        if (created.has(event.id)) return json(response, 409, { error: { code: 409, message: 'duplicate' } });
        created.add(event.id);
        if (loseFirstCreate) {
          loseFirstCreate = false;
          return json(response, 503, { error: { code: 503, message: 'Backend Error' } });
        }
        return json(response, 200, { ...event, start: { dateTime: '2026-11-23T10:00:00Z' } });
      }
      if (request.path === '/gmail/v1/users/me/messages')
        return json(response, 200, { messages: [{ id: 'm1', threadId: 't1' }], resultSizeEstimate: 1 });
      return json(response, 200, {
        id: 'm1',
        threadId: 't1',
        snippet: 'Can we meet tomorrow?',
        payload: {
          mimeType: 'text/plain',
          headers: [
            { name: 'From', value: 'ada@example.com' },
            { name: 'Subject', value: 'Meeting' },
          ],
        },
      });
    });
    const store = new InMemoryCredentialStore();
    for (const [name, token] of Object.entries(TOKENS))
      await store.put({ name, type: 'oauth2', token, metadata: { base_url: google.url } });
    const llm = new ScriptedModel([
      {
        toolCalls: [
          { name: 'mail_search', args: { action: 'search', query: 'subject:meeting' }, id: 't_mail' },
          { name: 'file_drive', args: { action: 'get', file_id: 'd1' }, id: 't_drive' },
          {
            name: 'calendar',
            args: {
              action: 'create',
              summary: 'Meet Ada',
              start: '2026-11-23T10:00:00',
              end: '2026-11-23T10:30:00',
            },
            id: 't_cal',
          },
        ],
      },
      { text: 'Booked.' },
    ]);
    env = await startTestWorker({
      assistant: {
        llm,
        credentialStore: store,
        tools: [new MailTool(), new CalendarTool(), new FileDriveTool()],
        timeouts: { toolMaxAttempts: 3 },
      },
    });
  });
  afterAll(async () => {
    await env?.stop();
    await google?.close();
  });

  it('searches mail, reads a Doc and creates one event through a lost answer, leaking no token', async () => {
    const handle = await env.agents.start('assistant', 'Book the meeting Ada asked for');
    const events = await collect(handle.events());
    expect((await handle.result()).output).toBe('Booked.');
    const completed: Record<string, string> = Object.fromEntries(
      events
        .filter((e) => e.type === 'tool_completed')
        .map((e) => [String(e.payload.call_id), String(e.payload.output)]),
    );
    expect(completed.t_mail).toBe('m1 |  | ada@example.com | Meeting — Can we meet tomorrow?');
    expect(completed.t_drive).toBe(
      'd1 | Agenda | application/vnd.google-apps.document | \n\nAgenda: the launch.',
    );
    expect(completed.t_cal).toMatch(/^Created "Meet Ada"/);
    expect(created.size).toBe(1);
    const seen = (await historyText(handle.workflow)) + JSON.stringify(events);
    for (const token of Object.values(TOKENS)) expect(seen).not.toContain(token);
  });
});
