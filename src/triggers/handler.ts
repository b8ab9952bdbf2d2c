import { join } from 'node:path';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AgentClient } from '../client/agent-client.ts';
import { FileCredentialStore } from '../credentials/file-store.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { ConfigurationError } from '../errors.ts';
import { idPart } from '../common/ids.ts';
import { dataDir } from '../paths.ts';
import { defaultPrompt } from './prompt.ts';
import { logQuotaRefusal } from './quota-log.ts';
import type { Trigger, TriggerEvent, VerifiedDelivery } from './types.ts';
import { TriggerRejection, verifyDelivery } from './verify.ts';

export interface TriggerHandlerOptions {
  /** Starts the runs and reaches the sessions (its task queue is the workers'). */
  client: AgentClient;
  triggers: Trigger[];
  /** Where the signing secrets are (each trigger's `secretKey`). Default: `~/.toolkit-agent/credentials.json`. */
  credentialStore?: CredentialStore;
  /** One line per delivery: what was started, refused or ignored (no secret, no body). */
  log?: (line: string) => void;
  /** The largest body accepted. Default 1 MB. */
  maxBodyBytes?: number;
}

/** A web-standard request handler (`(request: Request) => Promise<Response>`). */
export type TriggerHandler = (request: Request) => Promise<Response>;

const SECRET_CACHE_MS = 10_000;

/**
 * Serves webhook triggers at `POST /<trigger name>`: verifies each delivery with its provider's
 * signature (the secret read from the credential store), then starts a run or sends a message into a
 * chat session, at most once per event: the run's workflow id (the session message's id) comes from
 * the provider's event or delivery id, so a redelivered, retried or concurrent duplicate starts
 * nothing new and still gets a 200. It answers as soon as the run is started (Slack wants an answer
 * within 3 seconds), never waiting for the run.
 *
 * Answers: 200 `{ started }` / `{ duplicate }` / `{ ignored }`; 401 bad signature or stale timestamp;
 * 400 a body that is not JSON; 404 an unknown trigger; 405 not POST; 413 a body too large.
 *
 * @example
 * const handle = createTriggerHandler({ client: agents, credentialStore, triggers: [{
 *   name: 'slack', source: 'slack', secretKey: 'slack_signing_secret',
 *   session: { agent: 'assistant', id: (e) => slackThreadId(e) },
 * }] });
 * createServer(toNodeListener(handle)).listen(3000);
 */
export function createTriggerHandler(options: TriggerHandlerOptions): TriggerHandler {
  const triggers = new Map<string, Trigger>();
  for (const trigger of options.triggers) {
    checkTrigger(trigger);
    if (triggers.has(trigger.name)) throw new ConfigurationError(`Two triggers are named "${trigger.name}".`);
    triggers.set(trigger.name, trigger);
  }
  const store =
    options.credentialStore ?? new FileCredentialStore({ path: join(dataDir(), 'credentials.json') });
  const secrets = new Map<string, { value: Promise<string>; at: number }>();
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const log = options.log ?? (() => undefined);

  const secretOf = (trigger: Trigger): Promise<string> => {
    const key = trigger.secretKey!;
    const cached = secrets.get(key);
    if (cached && Date.now() - cached.at < SECRET_CACHE_MS) return cached.value;
    const value = store.get(key).then((record) => {
      if (!record?.token) {
        secrets.delete(key);
        throw new ConfigurationError(
          `Trigger "${trigger.name}": no signing secret under "${key}" in the credential store. ` +
            `Store it: toolkit-agent creds set ${key} (the provider's signing secret as the token).`,
        );
      }
      return record.token;
    });
    secrets.set(key, { value, at: Date.now() });
    value.catch(() => secrets.delete(key));
    return value;
  };

  return async (request) => {
    const name = new URL(request.url).pathname.split('/').filter(Boolean).at(-1) ?? '';
    const trigger = triggers.get(name);
    if (!trigger) {
      return reply(404, {
        error: `No trigger named "${name}". Triggers: ${[...triggers.keys()].join(', ')}.`,
      });
    }
    if (request.method !== 'POST') return reply(405, { error: 'Triggers take POST.' });
    const body = await readBody(request, maxBodyBytes);
    if (body === undefined) return reply(413, { error: `The body is larger than ${maxBodyBytes} bytes.` });
    let delivery: VerifiedDelivery;
    try {
      delivery = trigger.verify
        ? customDelivery(trigger, await trigger.verify(request, body))
        : verifyDelivery(trigger.source!, { headers: request.headers, body }, await secretOf(trigger));
    } catch (error) {
      const rejection = asRejection(error);
      log(`trigger ${name}: refused (${rejection.status}): ${rejection.message}`);
      return reply(rejection.status, { error: rejection.message });
    }
    const parsed = delivery.body as { type?: string; challenge?: unknown };
    if (trigger.source === 'slack' && parsed?.type === 'url_verification') {
      return reply(200, { challenge: parsed.challenge });
    }
    const event: TriggerEvent = {
      trigger: name,
      source: trigger.source ?? 'custom',
      eventId: delivery.eventId,
      type: delivery.type,
      body: delivery.body,
      retry: Number(request.headers.get('x-slack-retry-num') ?? 0) || 0,
    };
    if (trigger.filter && !trigger.filter(event)) {
      log(`trigger ${name}: ignored event ${event.eventId}`);
      return reply(200, { ignored: event.eventId });
    }
    try {
      return reply(200, await dispatch(options.client, trigger, event, log));
    } catch (error) {
      log(`trigger ${name}: event ${event.eventId} could not start: ${(error as Error).message}`);
      // 503: the provider delivers again later, and the id makes that redelivery start it once.
      return reply(503, { error: `The event could not be started: ${(error as Error).message}` });
    }
  };
}

/** Starts the event's run or hands it to its session; a duplicate starts nothing. */
async function dispatch(
  client: AgentClient,
  trigger: Trigger,
  event: TriggerEvent,
  log: (line: string) => void,
): Promise<Record<string, unknown>> {
  const messageId = `trigger-${trigger.name}-${idPart(event.eventId).slice(0, 150)}`;
  if (trigger.run) {
    const tenant = valueOf(trigger.run.tenant, event);
    try {
      const handle = await client.startRun(trigger.run.agent, trigger.run.prompt(event), {
        ...trigger.run.options,
        workflowId: messageId,
        once: true,
        ...(tenant !== undefined ? { tenant } : {}),
      });
      logQuotaRefusal(client, handle, log, `trigger ${trigger.name}: event ${event.eventId}`);
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      log(`trigger ${trigger.name}: event ${event.eventId} already started ${messageId}`);
      return { duplicate: messageId };
    }
    log(`trigger ${trigger.name}: event ${event.eventId} started ${messageId}`);
    return { started: messageId };
  }
  const session = trigger.session!;
  const tenant = valueOf(session.tenant, event);
  const chat = client.chatSession(session.agent, {
    sessionId: session.id(event),
    ...(tenant !== undefined ? { tenant } : {}),
  });
  const { duplicate } = await chat.deliver((session.prompt ?? defaultPrompt)(event), { messageId });
  log(
    `trigger ${trigger.name}: event ${event.eventId} ${duplicate ? 'already in' : 'sent to'} ${chat.sessionId}`,
  );
  return duplicate
    ? { duplicate: messageId, session: chat.sessionId }
    : { started: messageId, session: chat.sessionId };
}

function checkTrigger(trigger: Trigger): void {
  if (!/^[\w-]{1,100}$/.test(trigger?.name ?? '')) {
    throw new ConfigurationError(
      `A trigger name is 1-100 letters, digits, _ or - (got ${JSON.stringify(trigger?.name)}).`,
    );
  }
  const where = `Trigger "${trigger.name}"`;
  if (!trigger.verify) {
    if (!['slack', 'linear', 'github', 'standard-webhooks'].includes(trigger.source ?? '')) {
      throw new ConfigurationError(
        `${where}: source must be 'slack', 'linear', 'github' or 'standard-webhooks' (or give verify).`,
      );
    }
    if (!trigger.secretKey) {
      throw new ConfigurationError(
        `${where}: secretKey names the credential record holding the signing secret.`,
      );
    }
  }
  if (Boolean(trigger.run) === Boolean(trigger.session)) {
    throw new ConfigurationError(
      `${where}: give either run (start a run) or session (send into a chat session).`,
    );
  }
}

function valueOf<T>(
  option: T | ((event: TriggerEvent) => T) | undefined,
  event: TriggerEvent,
): T | undefined {
  return typeof option === 'function' ? (option as (event: TriggerEvent) => T)(event) : option;
}

/**
 * What a custom `verify` answered, as a delivery: a falsy answer refuses the request (401), as many
 * verifier libraries answer `false`; an answer that is not a delivery is the trigger's misconfiguration
 * (500, naming the trigger), never a crash that the provider would redeliver into forever.
 */
function customDelivery(
  trigger: Trigger,
  answer: VerifiedDelivery | false | null | undefined,
): VerifiedDelivery {
  if (!answer)
    throw new TriggerRejection(401, `Not verified: the verify of trigger "${trigger.name}" refused it.`);
  const { eventId } = answer as Partial<VerifiedDelivery>;
  if (typeof answer !== 'object' || typeof eventId !== 'string' || eventId === '') {
    throw new ConfigurationError(
      `Trigger "${trigger.name}": verify answered ${describe(answer)}; it must return { eventId, body } ` +
        "(eventId a non-empty string: the provider's delivery or event id) to accept a request, and " +
        'false (or throw) to refuse it.',
    );
  }
  return answer;
}

function describe(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? String(value);
  return `an object with keys ${Object.keys(value).join(', ') || '(none)'}`;
}

function asRejection(error: unknown): TriggerRejection {
  if (error instanceof TriggerRejection) return error;
  if (error instanceof ConfigurationError) return new TriggerRejection(500, error.message);
  return new TriggerRejection(401, `Not verified: ${(error as Error)?.message ?? String(error)}`);
}

async function readBody(request: Request, limit: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > limit) return undefined;
  const bytes = new Uint8Array(await request.arrayBuffer());
  return bytes.byteLength > limit ? undefined : new TextDecoder().decode(bytes);
}

function reply(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}
