import { createHmac } from 'node:crypto';

/** Headers and body of a Slack Events API delivery, signed as Slack documents (v0 HMAC-SHA256). */
export function slackDelivery(
  secret: string,
  body: unknown,
  opts: { timestamp?: number; retry?: number } = {},
): { headers: Record<string, string>; body: string } {
  const raw = JSON.stringify(body);
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${raw}`).digest('hex')}`;
  return {
    body: raw,
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
      ...(opts.retry
        ? { 'x-slack-retry-num': String(opts.retry), 'x-slack-retry-reason': 'http_timeout' }
        : {}),
    },
  };
}

/** A Slack `app_mention` event callback. */
export function slackMention(
  eventId: string,
  text: string,
  opts: { channel?: string; ts?: string; threadTs?: string } = {},
) {
  const ts = opts.ts ?? `${Math.floor(Date.now() / 1000)}.000100`;
  return {
    token: 'legacy-verification-token',
    team_id: 'T0001',
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'app_mention',
      user: 'U0001',
      text,
      ts,
      channel: opts.channel ?? 'C0001',
      event_ts: ts,
      ...(opts.threadTs ? { thread_ts: opts.threadTs } : {}),
    },
  };
}

/** Headers and body of a Linear webhook delivery (`Linear-Signature`, HMAC-SHA256 of the body). */
export function linearDelivery(
  secret: string,
  deliveryId: string,
  body: Record<string, unknown>,
  opts: { webhookTimestamp?: number } = {},
): { headers: Record<string, string>; body: string } {
  const raw = JSON.stringify({ ...body, webhookTimestamp: opts.webhookTimestamp ?? Date.now() });
  return {
    body: raw,
    headers: {
      'content-type': 'application/json',
      'linear-delivery': deliveryId,
      'linear-event': typeof body.type === 'string' ? body.type : 'Issue',
      'linear-signature': createHmac('sha256', secret).update(raw).digest('hex'),
    },
  };
}
