/**
 * `npm run send-event [url]`: posts one event signed as Standard Webhooks signs it (the way your
 * provider will), to http://127.0.0.1:8787/events by default.
 */
import { createHmac, randomUUID } from 'node:crypto';

const url = process.argv[2] ?? `http://127.0.0.1:${process.env.PORT ?? 8787}/events`;
const secret = process.env.WEBHOOK_SECRET ?? 'whsec_ZGV2ZWxvcG1lbnQtc2VjcmV0LWNoYW5nZS1tZQ==';
const body = JSON.stringify({ type: 'deploy.finished', service: 'billing', status: 'failed' });
const id = `msg_${randomUUID()}`;
const timestamp = String(Math.floor(Date.now() / 1000));
const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');

const response = await fetch(url, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  },
  body,
});
console.log(`${response.status} ${await response.text()}`);
if (!response.ok) process.exitCode = 1;
