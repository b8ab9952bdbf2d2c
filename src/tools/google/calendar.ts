/**
 * The `toolkit-agent/tools/calendar` entry point.
 *
 * @module toolkit-agent/tools/calendar
 */
import '../../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
import { createHash } from 'node:crypto';
import type { CredentialStore } from '../../credentials/types.ts';
import { z } from 'zod';
import { ToolInputError, UpstreamError } from '../../errors.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';
import { collectPages } from '../../http/collect-pages.ts';
import { googleRequest, requireScope } from './request.ts';
import { timeWindow } from './time-window.ts';

const parameters = z.object({
  action: z.enum(['search', 'create']),
  query: z
    .string()
    .optional()
    .describe(
      'search: free text and/or a day phrase: today, tomorrow, yesterday, this/next week, monday, next friday, 2026-11-02',
    ),
  calendar_id: z.string().optional().describe('Default: primary'),
  time_zone: z
    .string()
    .optional()
    .describe("IANA time zone, e.g. Europe/Berlin (default: the record's, else UTC)"),
  summary: z.string().optional().describe('create: the title (required)'),
  start: z.string().optional().describe('create: RFC 3339 start, e.g. 2026-11-02T09:00:00 (required)'),
  end: z.string().optional().describe('create: RFC 3339 end (required)'),
  attendees: z.array(z.string()).optional().describe('create: attendee e-mail addresses'),
  description: z.string().optional(),
  max_results: z.number().int().min(1).max(250).optional().describe('search: default 25'),
});

interface CalendarEvent {
  id: string;
  summary?: string;
  htmlLink?: string;
  start?: { dateTime?: string; date?: string };
  end?: { dateTime?: string; date?: string };
}

export interface CalendarToolOptions {
  credentialKey?: string;
  credentialStore?: CredentialStore;
  /** The clock relative day phrases are read against (tests). */
  now?: () => Date;
}

/**
 * `calendar` (Google Calendar v3, docs/connectors.md): `search` events in a window read from day phrases in
 * the record's or the given time zone (the rest of the query is free text), and `create` an event
 * with a client-chosen id, so a retried create cannot make a second one.
 */
export class CalendarTool extends BaseConnectorTool<typeof parameters> {
  readonly name = 'calendar';
  readonly description =
    'Search calendar events (e.g. "tomorrow", "standup next monday") or create an event.';
  readonly parameters = parameters;
  protected override readonly defaultCredentialKey = 'calendar';
  protected override readonly loginCommand = 'auth google --services calendar';
  protected override readonly credentialTypes = ['oauth2', 'bearer'] as const;
  readonly #now: () => Date;

  constructor(options: CalendarToolOptions = {}) {
    super(options);
    this.#now = options.now ?? (() => new Date());
  }

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const record = await this.getCredential(context);
    const calendar = encodeURIComponent(args.calendar_id ?? 'primary');
    const timeZone =
      args.time_zone ?? (typeof record.metadata?.time_zone === 'string' ? record.metadata.time_zone : 'UTC');
    if (args.action === 'search') {
      requireScope(record, ['calendar.readonly', 'calendar.events', 'calendar'], 'Reading events');
      const now = this.#now();
      const window = timeWindow(args.query ?? '', timeZone, now) ?? {
        timeMin: now.toISOString(),
        timeMax: new Date(now.getTime() + 7 * 86_400_000).toISOString(),
        rest: args.query ?? '',
      };
      const max = args.max_results ?? 25;
      const events = await collectPages<CalendarEvent>(max, async (pageToken, wanted) => {
        const { json } = await googleRequest(record, context, {
          method: 'GET',
          path: `/calendar/v3/calendars/${calendar}/events`,
          query: {
            timeMin: window.timeMin,
            timeMax: window.timeMax,
            q: window.rest || undefined,
            singleEvents: true,
            orderBy: 'startTime',
            maxResults: Math.min(wanted, 250),
            timeZone,
            pageToken,
          },
          service: 'Google Calendar',
        });
        const page = json as { items?: CalendarEvent[]; nextPageToken?: string };
        return { items: page.items, next: page.nextPageToken };
      });
      const lines = events.map(
        (e) =>
          `${e.start?.dateTime ?? e.start?.date ?? '?'} – ${e.end?.dateTime ?? e.end?.date ?? '?'} ${e.summary ?? '(no title)'} (id ${e.id})`,
      );
      const span = `${window.timeMin} to ${window.timeMax}`;
      return {
        text: lines.length
          ? lines.join('\n')
          : `No events from ${span}${window.rest ? ` matching "${window.rest}"` : ''}.`,
        metadata: { events, window },
      };
    }
    requireScope(record, ['calendar.events', 'calendar'], 'Creating events');
    if (!args.summary || !args.start || !args.end)
      throw new ToolInputError('create needs summary, start and end.');
    const id = eventId(context);
    const body = {
      id,
      summary: args.summary,
      ...(args.description ? { description: args.description } : {}),
      start: { dateTime: args.start, timeZone },
      end: { dateTime: args.end, timeZone },
      ...(args.attendees?.length ? { attendees: args.attendees.map((email) => ({ email })) } : {}),
    };
    let event: CalendarEvent;
    try {
      event = (
        await googleRequest(record, context, {
          method: 'POST',
          path: `/calendar/v3/calendars/${calendar}/events`,
          body,
          service: 'Google Calendar',
          idempotent: true, // the id makes a repeat harmless
        })
      ).json as CalendarEvent;
    } catch (error) {
      // A retry after a lost answer: the first attempt created it (409 duplicate). Answer with it.
      if (!(error instanceof UpstreamError) || error.status !== 409) throw error;
      event = (
        await googleRequest(record, context, {
          method: 'GET',
          path: `/calendar/v3/calendars/${calendar}/events/${id}`,
          service: 'Google Calendar',
        })
      ).json as CalendarEvent;
    }
    return {
      text: `Created "${event.summary ?? args.summary}" ${event.start?.dateTime ?? args.start} (id ${event.id})`,
      metadata: { event },
    };
  }
}

/** base32hex (0-9, a-v), fixed by the workflow and the tool call: the same on every retry. */
function eventId(context: ToolContext): string {
  const digest = createHash('sha256').update(`${context.workflowId}\n${context.callId}\ncalendar`).digest();
  const alphabet = '0123456789abcdefghijklmnopqrstuv';
  let id = '';
  for (let i = 0; i < 26; i++) id += alphabet[digest[i]! & 31];
  return id;
}
