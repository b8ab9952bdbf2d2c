import type { StartRunOptions } from '../client/agent-client.ts';

/** Where a webhook comes from: decides how it is verified and what identifies a delivery. */
export type TriggerSource = 'slack' | 'linear' | 'github' | 'standard-webhooks';

/** A verified delivery, as the trigger's functions see it. */
export interface TriggerEvent {
  /** The trigger's name (its path: `POST /<name>`). */
  trigger: string;
  source: TriggerSource | 'custom';
  /**
   * What makes the event unique, from the provider: Slack's `event_id`, Linear's `Linear-Delivery`,
   * GitHub's `X-GitHub-Delivery`, Standard Webhooks' `webhook-id`. Redeliveries carry the same one.
   */
  eventId: string;
  /** The provider's event type, where it says one (`app_mention`, `Issue`, `push`, ...). */
  type: string | undefined;
  /** The parsed JSON body. */
  body: unknown;
  /** How many times the provider says it sent this before (Slack's `X-Slack-Retry-Num`), else 0. */
  retry: number;
}

/** What a custom `verify` returns for a request it accepts. */
export interface VerifiedDelivery {
  eventId: string;
  type?: string;
  body: unknown;
}

/**
 * One webhook endpoint, served at `POST /<name>`. The signing secret is the `token` of the credential
 * record `secretKey` (never in code). A verified event starts a run (`run`) or sends a message into a
 * chat session (`session`), at most once per event however often it is delivered.
 */
export interface Trigger {
  /** The path segment: letters, digits, `_` and `-`. */
  name: string;
  /** A built-in verifier; leave it out when `verify` is given. */
  source?: TriggerSource;
  /** The credential record whose `token` is the signing secret (built-in sources). */
  secretKey?: string;
  /**
   * Your own check for another provider: return the delivery to accept the request; return `false`
   * (or anything falsy) or throw to refuse it (401).
   */
  verify?: (
    request: Request,
    body: string,
  ) => VerifiedDelivery | false | null | undefined | Promise<VerifiedDelivery | false | null | undefined>;
  /** Events for which this returns false are acknowledged (200) and start nothing. */
  filter?: (event: TriggerEvent) => boolean;
  /** Start a run of `agent` for each event. */
  run?: {
    agent: string;
    prompt: (event: TriggerEvent) => string;
    tenant?: string | ((event: TriggerEvent) => string | undefined);
    /** Other options of the run (model, limits, output, ...). */
    options?: Omit<StartRunOptions, 'workflowId' | 'tenant'>;
  };
  /**
   * Send each event into the chat session `id(event)` of `agent` (a Slack thread, a Linear issue),
   * starting the session when it does not exist yet. `prompt` defaults to the event's text.
   */
  session?: {
    agent: string;
    id: (event: TriggerEvent) => string;
    prompt?: (event: TriggerEvent) => string;
    tenant?: string | ((event: TriggerEvent) => string | undefined);
  };
}
