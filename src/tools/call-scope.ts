import { AsyncLocalStorage } from 'node:async_hooks';
import type { CredentialRecord, CredentialStore } from '../credentials/types.ts';

/** A credential a tool call read: where it came from and the token the call used. */
export interface UsedCredential {
  store: CredentialStore;
  key: string;
  tenant: string | undefined;
  record: CredentialRecord;
}

/** What one tool call did that matters when a service rejects its credential. */
export interface ToolCallScope {
  credentials: UsedCredential[];
  /** Requests that are not idempotent, sent and not refused with 401: they may have taken effect. */
  writesSent: number;
}

const scopes = new AsyncLocalStorage<ToolCallScope>();

/** Runs one attempt of a tool call in a fresh scope, answering its result and what it recorded. */
export async function inToolCallScope<T>(
  work: () => Promise<T>,
): Promise<{ scope: ToolCallScope; result: PromiseSettledResult<T> }> {
  const scope: ToolCallScope = { credentials: [], writesSent: 0 };
  try {
    return { scope, result: { status: 'fulfilled', value: await scopes.run(scope, work) } };
  } catch (reason) {
    return { scope, result: { status: 'rejected', reason } };
  }
}

/** Notes a credential the current tool call read (called by `getCredential`). */
export function noteCredentialUse(used: UsedCredential): void {
  scopes.getStore()?.credentials.push(used);
}

/**
 * Notes that the current tool call sent a request that is not idempotent and got an answer other
 * than 401 (or no answer): it cannot be repeated blindly (called by `httpRequest`).
 */
export function noteWriteSent(): void {
  const scope = scopes.getStore();
  if (scope) scope.writesSent += 1;
}

/**
 * Takes back the last {@link noteWriteSent}: the service answered the write (with HTTP 200, as Slack
 * does) with its own word for a rejected credential, which proves it did nothing.
 */
export function noteWriteRefused(): void {
  const scope = scopes.getStore();
  if (scope && scope.writesSent > 0) scope.writesSent -= 1;
}
