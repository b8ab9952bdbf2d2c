import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory, CancelledFailure } from '@temporalio/common';
import { ToolkitError } from '../errors.ts';
import type { SecretSet } from '../redaction.ts';

const MAX_ERROR_CHARS = 2_000;

/**
 * The activity boundary: every error becomes an `ApplicationFailure` whose `type` is the error's
 * class, non-retryable unless the error says a retry may succeed, with Retry-After as
 * `nextRetryDelay`. The message is redacted against every secret the activity read, and the original
 * error is not attached (its message and stack may hold a secret).
 */
export function toApplicationFailure(error: unknown, secrets?: SecretSet): ApplicationFailure {
  if (error instanceof ApplicationFailure && !secrets?.size) return error;
  const raw = error instanceof Error ? error.message : String(error);
  const redacted = secrets ? secrets.redact(raw) : raw;
  const message =
    redacted.length > MAX_ERROR_CHARS ? `${redacted.slice(0, MAX_ERROR_CHARS)} [...]` : redacted;
  if (error instanceof ToolkitError) {
    return ApplicationFailure.create({
      message,
      type: error.name,
      nonRetryable: !error.retryable,
      nextRetryDelay: error.retryAfterMs,
      details: [{ code: error.code }],
    });
  }
  const type = failureType(error);
  const nonRetryable = error instanceof ApplicationFailure ? Boolean(error.nonRetryable) : false;
  return ApplicationFailure.create({ message, type, nonRetryable });
}

/**
 * A tool failure is an answer to the model (arguments refused, an unknown tool, a credential that
 * cannot be read, a tool error; a retryable one after its retries): the run goes on, so it is not
 * logged as a failed activity. Temporal logs a benign failure at DEBUG (full detail there); this
 * logs one line at INFO.
 */
export function asToolAnswer(failure: ApplicationFailure, tool: string): ApplicationFailure {
  const context = Context.current();
  const reason = `${failure.type ?? 'Error'}: ${(failure.message ?? '').split('\n')[0]}`;
  context.log.info(
    failure.nonRetryable
      ? `Tool ${tool} failed; the model is told: ${reason}`
      : `Tool ${tool} failed on attempt ${context.info.attempt} (retried; once retries are spent the model is told): ${reason}`,
  );
  return ApplicationFailure.create({
    message: failure.message,
    type: failure.type ?? undefined,
    nonRetryable: failure.nonRetryable ?? undefined,
    details: failure.details ? [...failure.details] : undefined,
    nextRetryDelay: typeof failure.nextRetryDelay === 'number' ? failure.nextRetryDelay : undefined, // ours are ms
    category: ApplicationFailureCategory.BENIGN,
  });
}

/** The type a failure is reported under: an ApplicationFailure's type, else the error's name. */
export function failureType(error: unknown): string {
  if (error instanceof ApplicationFailure) return error.type ?? 'Error';
  return error instanceof Error ? error.name : 'Error';
}

/**
 * An activity that ends because it was cancelled reports a cancellation (so the workflow sees a
 * cancelled call, not a failed one), whatever the aborted work threw; other errors go through `convert`.
 */
export function cancelledOr(error: unknown, convert: () => Error): Error {
  if (error instanceof CancelledFailure) return error;
  if (Context.current().cancellationSignal.aborted)
    return new CancelledFailure('The activity was cancelled.');
  return convert();
}
