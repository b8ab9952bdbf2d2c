import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { CalendarTool } from '../../src/tools/calendar.ts';
import { MailTool } from '../../src/tools/mail.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { discoveryValidator, GOOGLE_DISCOVERY_AVAILABLE } from '../support/providers/google-discovery.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';

const TOKENS = { mail: 'ya29.canary-mail-0001', calendar: 'ya29.canary-calendar-0002' };

describe.skipIf(!GOOGLE_DISCOVERY_AVAILABLE)('the Google connectors in one real agent run', () => {
  let env: TestWorker;
  let google: RecordingServer;
  const created = new Set<string>();
  let loseFirstCreate = true;

  beforeAll(async () => {
    const validators = {
      gmail: discoveryValidator('gmail-v1.json'),
      calendar: discoveryValidator('calendar-v3.json'),
    };
    google = await startRecordingServer((request, response) => {
      const api = request.path.startsWith('/gmail/') ? 'gmail' : 'calendar';
      const problem = validators[api](request.method, request.path, request.query);
      if (problem) return json(response, 400, { error: { code: 400, message: problem } });
      if (request.headers.authorization !== `Bearer ${TOKENS[api === 'gmail' ? 'mail' : 'calendar']}`)
        return json(response, 401, { error: { code: 401, message: 'Invalid Credentials' } });
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
        tools: [new MailTool(), new CalendarTool()],
        timeouts: { toolMaxAttempts: 3 },
      },
    });
  });
  afterAll(async () => {
    await env?.stop();
    await google?.close();
  });

  it('searches mail and creates one event through a lost answer, leaking no token', async () => {
    const handle = await env.agents.start('assistant', 'Book the meeting Ada asked for');
    const events = await collect(handle.events());
    expect((await handle.result()).output).toBe('Booked.');
    const completed: Record<string, string> = Object.fromEntries(
      events
        .filter((e) => e.type === 'tool_completed')
        .map((e) => [String(e.payload.call_id), String(e.payload.output)]),
    );
    expect(completed.t_mail).toBe('m1 |  | ada@example.com | Meeting — Can we meet tomorrow?');
    expect(completed.t_cal).toMatch(/^Created "Meet Ada"/);
    expect(created.size).toBe(1);
    const seen = (await historyText(handle.workflow)) + JSON.stringify(events);
    for (const token of Object.values(TOKENS)) expect(seen).not.toContain(token);
  });
});
