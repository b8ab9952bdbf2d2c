import { sign as signGitHub } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { TriggerRejection, verifyDelivery } from '../../src/triggers/verify.ts';
import { linearDelivery, slackDelivery, slackMention } from '../support/webhook-signing.ts';

const SECRET = 'signing-secret-0123456789abcdef';

function refused(run: () => unknown): TriggerRejection {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TriggerRejection);
    return error as TriggerRejection;
  }
  throw new Error('accepted');
}

describe('webhook verification', () => {
  it('accepts a Slack delivery signed over v0:<timestamp>:<body> and names its event', () => {
    const signed = slackDelivery(SECRET, slackMention('Ev01', '<@U0BOT> hello'));
    const delivery = verifyDelivery(
      'slack',
      { headers: new Headers(signed.headers), body: signed.body },
      SECRET,
    );
    expect(delivery).toMatchObject({ eventId: 'Ev01', type: 'app_mention' });
  });

  it('refuses a Slack delivery with a wrong secret, a changed body or a timestamp 6 minutes old', () => {
    const signed = slackDelivery(SECRET, slackMention('Ev02', 'hi'));
    const wrong = refused(() =>
      verifyDelivery('slack', { headers: new Headers(signed.headers), body: signed.body }, 'another-secret'),
    );
    expect(wrong.status).toBe(401);
    expect(wrong.message).toBe('The X-Slack-Signature does not match the body: check the signing secret.');
    expect(wrong.message).not.toContain(SECRET);
    const changed = refused(() =>
      verifyDelivery(
        'slack',
        { headers: new Headers(signed.headers), body: signed.body.replace('hi', 'ho') },
        SECRET,
      ),
    );
    expect(changed.status).toBe(401);
    const old = slackDelivery(SECRET, slackMention('Ev03', 'hi'), {
      timestamp: Math.floor(Date.now() / 1000) - 360,
    });
    const stale = refused(() =>
      verifyDelivery('slack', { headers: new Headers(old.headers), body: old.body }, SECRET),
    );
    expect(stale.message).toMatch(/X-Slack-Request-Timestamp is 36\d s from now \(more than 300 s\)/);
  });

  it('accepts a Linear delivery within 60 s and takes Linear-Delivery as its id; refuses an older one', () => {
    const signed = linearDelivery(SECRET, 'd-1', { type: 'Issue', action: 'create', data: { id: 'i1' } });
    expect(
      verifyDelivery('linear', { headers: new Headers(signed.headers), body: signed.body }, SECRET),
    ).toMatchObject({ eventId: 'd-1', type: 'Issue' });
    const old = linearDelivery(SECRET, 'd-2', { type: 'Issue' }, { webhookTimestamp: Date.now() - 61_000 });
    expect(
      refused(() => verifyDelivery('linear', { headers: new Headers(old.headers), body: old.body }, SECRET))
        .status,
    ).toBe(401);
  });

  it('accepts what @octokit/webhooks-methods signs (X-Hub-Signature-256) and refuses a tampered body', async () => {
    const body = JSON.stringify({ action: 'opened', issue: { number: 7 } });
    const headers = new Headers({
      'x-hub-signature-256': await signGitHub(SECRET, body),
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-github-event': 'issues',
    });
    expect(verifyDelivery('github', { headers, body }, SECRET)).toMatchObject({
      eventId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      type: 'issues',
    });
    expect(
      refused(() => verifyDelivery('github', { headers, body: body.replace('7', '8') }, SECRET)).status,
    ).toBe(401);
  });

  it('accepts what the standardwebhooks library signs, with the whsec_ secret, and refuses a stale one', () => {
    const secret = `whsec_${Buffer.from('a-32-byte-standard-webhook-key!!').toString('base64')}`;
    const webhook = new Webhook(secret);
    const body = JSON.stringify({ type: 'invoice.paid', data: { id: 'in_1' } });
    const now = new Date();
    const headers = new Headers({
      'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      // Rotating secrets send two signatures: any one that matches is enough.
      'webhook-signature': `v1,bm90LXRoZS1zaWduYXR1cmU= ${webhook.sign('msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', now, body)}`,
    });
    expect(verifyDelivery('standard-webhooks', { headers, body }, secret)).toMatchObject({
      eventId: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
      type: 'invoice.paid',
    });
    const then = new Date(Date.now() - 6 * 60_000);
    const staleHeaders = new Headers({
      'webhook-id': 'msg_old',
      'webhook-timestamp': String(Math.floor(then.getTime() / 1000)),
      'webhook-signature': webhook.sign('msg_old', then, body),
    });
    expect(
      refused(() => verifyDelivery('standard-webhooks', { headers: staleHeaders, body }, secret)).status,
    ).toBe(401);
  });

  it('says 400 for a signed body that is not JSON and 401 for a missing signature header', () => {
    const raw = 'not json';
    const headers = new Headers({ 'linear-signature': 'x', 'linear-delivery': 'd' });
    expect(refused(() => verifyDelivery('linear', { headers, body: raw }, SECRET)).status).toBe(401);
    const missing = refused(() => verifyDelivery('slack', { headers: new Headers(), body: '{}' }, SECRET));
    expect(missing.message).toBe('The x-slack-request-timestamp header is missing.');
  });
});
