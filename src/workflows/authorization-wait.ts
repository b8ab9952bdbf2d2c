import { CancelledFailure, condition, upsertMemo } from '@temporalio/workflow';
import {
  AUTHORIZATION_CHECK_EVERY_MS,
  type AuthorizationCompletedSignal,
  type AuthorizationRequest,
  type PendingAuthorization,
  type ResolvedAuthorization,
} from '../common/authorization.ts';
import type { AgentEventType } from '../common/events.ts';
import type { ToolCall } from '../common/messages.ts';
import type { ToolOutcome } from '../common/run.ts';
import { showWaitingForAuthorization } from '../visibility/current-details.ts';
import { quickActivities } from './quick-activities.ts';

const HOUR_MS = 60 * 60_000;
/** How often a wait that has lasted an hour looks in the store. */
const LATER_CHECK_EVERY_MS = 15 * 60_000;

/**
 * The tool calls of a run (or chat turn) waiting for a user's grant. A wait is a durable
 * `condition` with a timeout, woken by the `authorizationCompleted` signal of its tenant and key,
 * and every minute it asks the store itself (a token stored any other way is found). Replay
 * rebuilds it, so it survives worker restarts and deploys.
 */
export class Authorizations {
  readonly #pending = new Map<string, PendingAuthorization>();
  /** Grants announced, by tenant and key: a wait ends when its count grows. */
  readonly #grants = new Map<string, number>();
  /** The keys the run's memo says it waits for (listings mark such runs), as last written. */
  #memo = '';

  list(): PendingAuthorization[] {
    return [...this.#pending.values()];
  }

  /** A grant arrived (signal): every call of this run waiting on that tenant and key goes on. */
  complete(signal: AuthorizationCompletedSignal): void {
    if (!signal || typeof signal.credential_key !== 'string') return;
    const id = grantId(signal.tenant, signal.credential_key);
    this.#grants.set(id, (this.#grants.get(id) ?? 0) + 1);
  }

  /**
   * Waits until the grant is announced or found in the store, or `deadline` (workflow time) passes:
   * true when granted. Rejects with the scope's cancellation when the run is stopped meanwhile.
   */
  async wait(
    call: ToolCall,
    request: AuthorizationRequest,
    deadline: number,
    found: () => Promise<boolean>,
    checkEveryMs = AUTHORIZATION_CHECK_EVERY_MS,
  ): Promise<boolean> {
    const id = grantId(request.tenant, request.credential_key);
    const seen = this.#grants.get(id) ?? 0;
    this.#pending.set(call.id, {
      ...request,
      call_id: call.id,
      tool: call.name,
      requested_at: new Date().toISOString(),
    });
    this.#showInMemo();
    const since = Date.now();
    try {
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) return false;
        // Each check is a few history events: every `checkEveryMs` for the first hour, then every
        // 15 minutes, so a wait of days stays far inside Temporal's history limits.
        const every =
          Date.now() - since < HOUR_MS ? checkEveryMs : Math.max(checkEveryMs, LATER_CHECK_EVERY_MS);
        const woken = await condition(() => (this.#grants.get(id) ?? 0) > seen, Math.min(every, left));
        if (woken || (await found())) return true;
      }
    } finally {
      this.#pending.delete(call.id);
      this.#showInMemo();
    }
  }

  /** The memo's `waiting_for_authorization`: the keys waited for, comma-separated; removed when none. */
  #showInMemo(): void {
    const keys = [...new Set(this.list().map((pending) => pending.credential_key))].sort().join(',');
    if (keys === this.#memo) return;
    this.#memo = keys;
    upsertMemo({ waiting_for_authorization: keys || null });
  }
}

/**
 * How long a wait sleeps before it looks in the store again, after waiting `elapsedMs`. Each look is
 * a few history events: every `checkEveryMs` for the first hour, then every 15 minutes, so a wait
 * of days stays far inside Temporal's history limits (a week: about 700 looks).
 */
export function storeCheckInterval(elapsedMs: number, checkEveryMs: number): number {
  return elapsedMs < HOUR_MS ? checkEveryMs : Math.max(checkEveryMs, LATER_CHECK_EVERY_MS);
}

function grantId(tenant: string | undefined, key: string): string {
  return JSON.stringify([tenant ?? null, key]);
}

/** The call was never authorized in time and the run goes on: this is the model's answer. */
export interface NotAuthorized {
  notAuthorized: string;
}

/** What {@link invokeUntilAuthorized} needs of the loop. */
export interface AuthorizedCallContext {
  authorizations: Authorizations;
  settings: ResolvedAuthorization | undefined;
  call: ToolCall;
  agent: string;
  emit: (type: AgentEventType, message: string, payload: Record<string, unknown>) => void;
  /** Ends the run with `authorization_timeout` (`onTimeout: 'stop'`). */
  stop: (message: string) => void;
}

/**
 * Runs a tool call; when it asks for the user's grant, emits `authorization_required` (the URL),
 * waits durably, and runs the same call again once granted (the same input: the same position and
 * call id). Only this call waits: the step's other calls go on. Without a grant in time: answers
 * "not authorized" (`onTimeout: 'continue'`) or stops the run (`'stop'`).
 */
export async function invokeUntilAuthorized(
  context: AuthorizedCallContext,
  invoke: () => Promise<ToolOutcome>,
): Promise<ToolOutcome | NotAuthorized> {
  const { call, emit, settings } = context;
  const ids = { tool: call.name, call_id: call.id };
  let deadline: number | undefined;
  for (;;) {
    const outcome = await invoke();
    const asked = outcome.authorization;
    if (!asked) return outcome;
    const key = asked.credential_key;
    if (!settings) return { notAuthorized: `Not authorized: ${asked.message}` };
    deadline ??= Date.now() + settings.timeoutMs;
    const request: AuthorizationRequest = { ...asked, expires_at: new Date(deadline).toISOString() };
    emit('authorization_required', `${call.name} needs authorization of "${key}": open ${request.url}`, {
      ...ids,
      ...request,
    });
    showWaitingForAuthorization(key, call.name);
    const granted = await context.authorizations.wait(
      call,
      request,
      deadline,
      () =>
        quickActivities.authorizationReady({
          agent: context.agent,
          credential_key: key,
          reason: request.reason,
          ...(request.tenant !== undefined ? { tenant: request.tenant } : {}),
          ...(request.missing_scopes ? { missing_scopes: request.missing_scopes } : {}),
        }),
      settings.checkEveryMs,
    );
    if (granted) {
      emit('authorization_granted', `"${key}" was authorized: ${call.name} runs again`, {
        ...ids,
        credential_key: key,
      });
      continue;
    }
    const message = `Not authorized: nobody authorized "${key}" within ${formatDuration(settings.timeoutMs)}.`;
    emit('authorization_timed_out', `${call.name}: ${message}`, {
      ...ids,
      credential_key: key,
      on_timeout: settings.onTimeout,
    });
    if (settings.onTimeout === 'stop') {
      context.stop(message);
      throw new CancelledFailure(message);
    }
    return { notAuthorized: message };
  }
}

function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}
