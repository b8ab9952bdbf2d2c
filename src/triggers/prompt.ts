import type { TriggerEvent } from './types.ts';

/**
 * What an event says, as a prompt: a Slack message's text, a Linear issue's or comment's title and
 * body, else the event as JSON.
 */
export function defaultPrompt(event: TriggerEvent): string {
  const body = (event.body ?? {}) as {
    event?: { text?: string };
    type?: string;
    action?: string;
    data?: { title?: string; description?: string; body?: string };
  };
  if (event.source === 'slack' && typeof body.event?.text === 'string') return body.event.text;
  if (event.source === 'linear' && body.data) {
    const text = [body.data.title, body.data.description ?? body.data.body].filter(Boolean).join('\n\n');
    return `${body.type ?? 'Linear'} ${body.action ?? 'event'}: ${text}`.trim();
  }
  return JSON.stringify(event.body);
}
