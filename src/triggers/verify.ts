import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TriggerSource, VerifiedDelivery } from './types.ts';

/** A request refused before anything started: `status` and a message that names the problem (never a secret). */
export class TriggerRejection extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'TriggerRejection';
    this.status = status;
  }
}

/** What a verifier reads of a request. */
export interface DeliveryRequest {
  headers: Headers;
  body: string;
}

/** How old a signed timestamp may be (and how far in the future), per source. */
export const TIMESTAMP_TOLERANCE_MS: Record<TriggerSource, number> = {
  slack: 5 * 60_000,
  linear: 60_000,
  github: 0, // GitHub signs no timestamp
  'standard-webhooks': 5 * 60_000,
};

/**
 * Checks a delivery's signature the way its provider documents it and returns what identifies it.
 * Throws {@link TriggerRejection} (401 for a bad or stale signature, 400 for a body that is not JSON).
 */
export function verifyDelivery(
  source: TriggerSource,
  request: DeliveryRequest,
  secret: string,
  now = Date.now(),
): VerifiedDelivery {
  switch (source) {
    case 'slack':
      return verifySlack(request, secret, now);
    case 'linear':
      return verifyLinear(request, secret, now);
    case 'github':
      return verifyGitHub(request, secret);
    case 'standard-webhooks':
      return verifyStandardWebhooks(request, secret, now);
  }
}

/** Slack: `X-Slack-Signature: v0=hex(HMAC-SHA256(secret, "v0:<X-Slack-Request-Timestamp>:<raw body>"))`. */
function verifySlack({ headers, body }: DeliveryRequest, secret: string, now: number): VerifiedDelivery {
  const timestamp = required(headers, 'x-slack-request-timestamp');
  checkAge(Number(timestamp) * 1000, now, TIMESTAMP_TOLERANCE_MS.slack, 'X-Slack-Request-Timestamp');
  const expected = `v0=${hmac(secret, `v0:${timestamp}:${body}`, 'hex')}`;
  checkSignature(required(headers, 'x-slack-signature'), expected, 'X-Slack-Signature');
  const parsed = json(body) as {
    type?: string;
    event_id?: string;
    event?: { type?: string };
    challenge?: string;
  };
  // url_verification has no event id: the challenge itself identifies it.
  const eventId =
    parsed.event_id ?? (parsed.type === 'url_verification' ? `challenge-${parsed.challenge}` : undefined);
  if (!eventId) throw new TriggerRejection(400, 'The Slack delivery has no event_id.');
  return { eventId, type: parsed.event?.type ?? parsed.type, body: parsed };
}

/** Linear: `Linear-Signature: hex(HMAC-SHA256(secret, raw body))`, `webhookTimestamp` (ms) in the body, `Linear-Delivery`. */
function verifyLinear({ headers, body }: DeliveryRequest, secret: string, now: number): VerifiedDelivery {
  checkSignature(required(headers, 'linear-signature'), hmac(secret, body, 'hex'), 'Linear-Signature');
  const parsed = json(body) as { webhookTimestamp?: number; type?: string };
  if (typeof parsed.webhookTimestamp !== 'number') {
    throw new TriggerRejection(400, 'The Linear delivery has no webhookTimestamp.');
  }
  checkAge(parsed.webhookTimestamp, now, TIMESTAMP_TOLERANCE_MS.linear, 'webhookTimestamp');
  return { eventId: required(headers, 'linear-delivery'), type: parsed.type, body: parsed };
}

/** GitHub: `X-Hub-Signature-256: sha256=hex(HMAC-SHA256(secret, raw body))`, `X-GitHub-Delivery`. */
function verifyGitHub({ headers, body }: DeliveryRequest, secret: string): VerifiedDelivery {
  const expected = `sha256=${hmac(secret, body, 'hex')}`;
  checkSignature(required(headers, 'x-hub-signature-256'), expected, 'X-Hub-Signature-256');
  const eventId = headers.get('x-github-delivery') ?? required(headers, 'webhook-id');
  return { eventId, type: headers.get('x-github-event') ?? undefined, body: json(body) };
}

/**
 * Standard Webhooks (standardwebhooks.com): `webhook-signature` lists `v1,<base64 HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>">` entries (space-separated); the secret is base64, with
 * or without its `whsec_` prefix.
 */
function verifyStandardWebhooks(
  { headers, body }: DeliveryRequest,
  secret: string,
  now: number,
): VerifiedDelivery {
  const id = required(headers, 'webhook-id');
  const timestamp = required(headers, 'webhook-timestamp');
  checkAge(Number(timestamp) * 1000, now, TIMESTAMP_TOLERANCE_MS['standard-webhooks'], 'webhook-timestamp');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = hmac(key, `${id}.${timestamp}.${body}`, 'base64');
  const given = required(headers, 'webhook-signature')
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version]) => version === 'v1')
    .map(([, signature]) => signature ?? '');
  if (!given.some((signature) => equal(signature, expected))) {
    throw new TriggerRejection(
      401,
      'The webhook-signature does not match the body: check the signing secret.',
    );
  }
  const parsed = json(body) as { type?: string };
  return { eventId: id, type: parsed.type, body: parsed };
}

function hmac(key: string | Buffer, data: string, encoding: 'hex' | 'base64'): string {
  return createHmac('sha256', key).update(data, 'utf8').digest(encoding);
}

function equal(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function checkSignature(given: string, expected: string, header: string): void {
  if (!equal(given, expected)) {
    throw new TriggerRejection(401, `The ${header} does not match the body: check the signing secret.`);
  }
}

function checkAge(signedAtMs: number, now: number, toleranceMs: number, field: string): void {
  if (!Number.isFinite(signedAtMs)) throw new TriggerRejection(401, `The ${field} is not a timestamp.`);
  if (Math.abs(now - signedAtMs) > toleranceMs) {
    throw new TriggerRejection(
      401,
      `The ${field} is ${Math.round((now - signedAtMs) / 1000)} s from now (more than ${toleranceMs / 1000} s): a replayed or delayed delivery, or a clock that is off.`,
    );
  }
}

function required(headers: Headers, name: string): string {
  const value = headers.get(name);
  if (!value) throw new TriggerRejection(401, `The ${name} header is missing.`);
  return value;
}

function json(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new TriggerRejection(400, 'The body is not JSON.');
  }
}
