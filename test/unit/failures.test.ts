import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { toApplicationFailure } from '../../src/activities/failures.ts';
import { CredentialError, RateLimitError, ToolInputError, UpstreamError } from '../../src/errors.ts';
import { SecretSet } from '../../src/redaction.ts';

describe('toApplicationFailure', () => {
  it.each([
    [new CredentialError('no token'), 'CredentialError', true],
    [new ToolInputError('bad args'), 'ToolInputError', true],
    [new UpstreamError('500', { status: 500, retryable: true }), 'UpstreamError', false],
    [new UpstreamError('400', { status: 400 }), 'UpstreamError', true],
    [new TypeError('bug'), 'TypeError', false],
  ])('maps %s to type %s, nonRetryable=%s', (error, type, nonRetryable) => {
    const failure = toApplicationFailure(error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(nonRetryable);
  });

  it('carries Retry-After as nextRetryDelay', () => {
    const failure = toApplicationFailure(new RateLimitError('slow down', { retryAfterMs: 7000 }));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(7000);
  });

  it('redacts secrets from the message and drops the original error, whose stack may hold one', () => {
    const secrets = new SecretSet();
    secrets.add('sk-live-abcdef');
    const original = new UpstreamError('401 for key sk-live-abcdef', { status: 401 });
    const failure = toApplicationFailure(original, secrets);
    expect(failure.message).toBe('401 for key [REDACTED]');
    expect(failure.cause).toBeUndefined();
    expect(failure.stack).not.toContain('sk-live-abcdef');
  });
});
