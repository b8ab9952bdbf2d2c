import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { PermissionError } from '../../src/errors.ts';
import { CalendarTool } from '../../src/tools/google/calendar.ts';
import { timeWindow } from '../../src/tools/google/time-window.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { discoveryValidator, GOOGLE_DISCOVERY_AVAILABLE } from '../support/providers/google-discovery.ts';
import { toolContext } from '../support/tool-context.ts';

describe('day phrases as windows', () => {
  it.each([
    // Berlin leaves summer time on 2026-10-25: tomorrow seen from Saturday is 25 hours long.
    [
      'tomorrow',
      'Europe/Berlin',
      '2026-10-24T10:00:00Z',
      '2026-10-25T00:00:00+02:00',
      '2026-10-26T00:00:00+01:00',
    ],
    [
      'tomorrow',
      'America/New_York',
      '2026-10-31T12:00:00Z',
      '2026-11-01T00:00:00-04:00',
      '2026-11-02T00:00:00-05:00',
    ],
    // New York leaves summer time on 2026-11-01: next monday seen from Friday the 30th.
    [
      'next monday',
      'America/New_York',
      '2026-10-30T15:00:00Z',
      '2026-11-02T00:00:00-05:00',
      '2026-11-03T00:00:00-05:00',
    ],
    [
      'next monday',
      'Europe/Berlin',
      '2026-10-30T15:00:00Z',
      '2026-11-02T00:00:00+01:00',
      '2026-11-03T00:00:00+01:00',
    ],
    ['monday', 'UTC', '2026-11-02T08:00:00Z', '2026-11-02T00:00:00+00:00', '2026-11-03T00:00:00+00:00'],
    ['next monday', 'UTC', '2026-11-02T08:00:00Z', '2026-11-09T00:00:00+00:00', '2026-11-10T00:00:00+00:00'],
    [
      'this week',
      'Asia/Tokyo',
      '2026-11-04T20:00:00Z',
      '2026-11-02T00:00:00+09:00',
      '2026-11-09T00:00:00+09:00',
    ],
    [
      '2026-12-24',
      'Europe/Berlin',
      '2026-11-04T20:00:00Z',
      '2026-12-24T00:00:00+01:00',
      '2026-12-25T00:00:00+01:00',
    ],
  ])('%s in %s at %s', (phrase, zone, now, timeMin, timeMax) => {
    expect(timeWindow(`standup ${phrase}`, zone, new Date(now))).toEqual({
      timeMin,
      timeMax,
      rest: 'standup',
    });
  });
});

describe.skipIf(!GOOGLE_DISCOVERY_AVAILABLE)(
  'calendar against a Google Calendar stand-in that checks the discovery document',
  () => {
    let google: RecordingServer;
    const events = new Map<string, Record<string, unknown>>();
    let loseNextCreate = false;
    const validate = discoveryValidator('calendar-v3.json');

    beforeEach(async () => {
      events.clear();
      google = await startRecordingServer((request, response) => {
        const problem = validate(request.method, request.path, request.query);
        if (problem)
          return json(response, 400, {
            error: { code: 400, message: problem, errors: [{ reason: 'badRequest' }] },
          });
        if (request.headers.authorization === 'Bearer ya29.no-scope') {
          return json(response, 403, {
            error: {
              code: 403,
              message: 'Request had insufficient authentication scopes.',
              errors: [{ reason: 'insufficientPermissions' }],
              status: 'PERMISSION_DENIED',
            },
          });
        }
        if (request.method === 'POST') {
          const event = JSON.parse(request.body) as { id: string };
          if (events.has(event.id))
            return json(response, 409, {
              error: {
                code: 409,
                message: 'The requested identifier already exists.',
                errors: [{ domain: 'global', reason: 'duplicate' }],
              },
            });
          events.set(event.id, { ...event, htmlLink: `https://calendar.google.com/e/${event.id}` });
          if (loseNextCreate) {
            loseNextCreate = false;
            return json(response, 502, { error: 'gateway timeout' });
          }
          return json(response, 200, events.get(event.id));
        }
        const byId = /\/events\/(\w+)$/.exec(request.path);
        if (byId) return json(response, 200, events.get(byId[1]!) ?? {});
        const items = [
          {
            id: 'e1',
            summary: 'Standup',
            start: { dateTime: '2026-11-02T09:00:00-05:00' },
            end: { dateTime: '2026-11-02T09:15:00-05:00' },
          },
          {
            id: 'e2',
            summary: 'Standup',
            start: { dateTime: '2026-11-02T16:00:00-05:00' },
            end: { dateTime: '2026-11-02T16:15:00-05:00' },
          },
        ];
        const page = request.query.get('pageToken') === 'p2' ? 1 : 0;
        return json(response, 200, {
          kind: 'calendar#events',
          items: [items[page]],
          ...(page === 0 ? { nextPageToken: 'p2' } : {}),
        });
      });
    });
    afterEach(() => google.close());

    async function store(token = 'ya29.calendar', scopes?: string[]) {
      const credentials = new InMemoryCredentialStore();
      await credentials.put({
        name: 'calendar',
        type: 'oauth2',
        token,
        metadata: { base_url: google.url, time_zone: 'America/New_York', ...(scopes ? { scopes } : {}) },
      });
      return credentials;
    }

    it('searches the window of a day phrase in the record time zone, through every page', async () => {
      const tool = new CalendarTool({ now: () => new Date('2026-10-30T15:00:00Z') });
      const { text } = await tool.run(toolContext(await store()), {
        action: 'search',
        query: 'standup next monday',
      });
      expect(text.split('\n')).toHaveLength(2);
      const query = Object.fromEntries(google.requests[0]!.query);
      expect(query).toMatchObject({
        timeMin: '2026-11-02T00:00:00-05:00',
        timeMax: '2026-11-03T00:00:00-05:00',
        q: 'standup',
        singleEvents: 'true',
        orderBy: 'startTime',
        timeZone: 'America/New_York',
      });
      expect(google.requests[1]!.query.get('pageToken')).toBe('p2');
      expect(google.requests[0]!.headers.authorization).toBe('Bearer ya29.calendar');
    });

    it('creates with a client-chosen base32hex id, so a retry after a lost answer leaves one event', async () => {
      const tool = new CalendarTool();
      const credentials = await store();
      const context = toolContext(credentials, { workflowId: 'wf-cal', callId: 'call-1' });
      const args = {
        action: 'create' as const,
        summary: 'Retro',
        start: '2026-11-03T10:00:00',
        end: '2026-11-03T11:00:00',
        attendees: ['ada@example.com'],
      };
      loseNextCreate = true;
      await expect(tool.run(context, args)).rejects.toThrow(/502/);
      const retried = await tool.run(context, args);
      expect(events.size).toBe(1);
      const [id] = [...events.keys()];
      expect(id).toMatch(/^[0-9a-v]{26}$/);
      expect(retried.text).toBe(`Created "Retro" 2026-11-03T10:00:00 (id ${id})`);
      expect(events.get(id!)).toMatchObject({
        attendees: [{ email: 'ada@example.com' }],
        start: { dateTime: '2026-11-03T10:00:00', timeZone: 'America/New_York' },
      });
    });

    it('checks granted scopes before any request, and explains insufficientPermissions', async () => {
      const readOnly = await store('ya29.calendar', ['https://www.googleapis.com/auth/calendar.readonly']);
      const error = await new CalendarTool()
        .run(toolContext(readOnly), { action: 'create', summary: 'x', start: 'a', end: 'b' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PermissionError);
      expect((error as Error).message).toMatch(/needs the scope calendar.events/);
      expect(google.requests).toHaveLength(0);
      await expect(
        new CalendarTool().run(toolContext(await store('ya29.no-scope')), {
          action: 'search',
          query: 'today',
        }),
      ).rejects.toThrow(/insufficient authentication scopes.*lacks a scope/);
    });

    it('the stand-in really checks requests against the discovery document', () => {
      expect(
        validate('GET', '/calendar/v3/calendars/primary/events', new URLSearchParams({ maxResults: 'ten' })),
      ).toMatch(/must be an integer/);
      expect(
        validate('GET', '/calendar/v3/calendars/primary/events', new URLSearchParams({ bogus: '1' })),
      ).toMatch(/no query parameter bogus/);
      expect(validate('DELETE', '/calendar/v3/calendars/primary/events', new URLSearchParams())).toMatch(
        /not allowed/,
      );
      expect(
        validate(
          'GET',
          '/calendar/v3/calendars/primary/events',
          new URLSearchParams({ orderBy: 'startTime' }),
        ),
      ).toBeUndefined();
    });
  },
);
