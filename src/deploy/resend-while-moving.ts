import { ApplicationFailure } from '@temporalio/common';
import { SESSION_MOVING } from './session-moving.ts';

/** Sends of one message before giving up on a session that keeps refusing it as moving. */
const ATTEMPTS = 5;

/**
 * Runs `send` (an update to a chat session) again when the session refused it because it was moving
 * to a new worker version: the next attempt reaches the session's new run, on the new version.
 */
export async function resendWhileSessionMoves<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= ATTEMPTS || !refusedAsMoving(error)) throw error;
      await pause(attempt);
    }
  }
}

/**
 * Streams a turn (`stream` starts it) again when the session refused it, before any event, because
 * it was moving to a new worker version: the next attempt is answered by the session's new run.
 */
export async function* restreamWhileSessionMoves<T>(stream: () => AsyncIterable<T>): AsyncGenerator<T> {
  for (let attempt = 1; ; attempt++) {
    let yielded = false;
    try {
      for await (const item of stream()) {
        yielded = true;
        yield item;
      }
      return;
    } catch (error) {
      if (yielded || attempt >= ATTEMPTS || !refusedAsMoving(error)) throw error;
      await pause(attempt);
    }
  }
}

/** A short wait before the next attempt, for the session's new run to start. */
function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50 * attempt));
}

function refusedAsMoving(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && e.type === SESSION_MOVING) return true;
  }
  return false;
}
