import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors.ts';
import { limitsFor, startRefusal, tokenRefusal, validateQuotas } from '../../src/usage/quotas.ts';
import { usageFilter } from '../../src/usage/query.ts';
import { parseTimePoint } from '../../src/usage/since.ts';

const now = Date.UTC(2026, 10, 26, 19, 30);
const counts = { running: [] as string[], recentStarts: [] as number[], tokensToday: 0 };

describe('quotas', () => {
  it("takes a tenant's own limits over perTenant, field by field", () => {
    const fleet = {
      perTenant: { maxConcurrentRuns: 5, maxTokensPerDay: 1000 },
      tenants: { acme: { maxConcurrentRuns: 20 } },
    };
    expect(limitsFor('acme', fleet)).toEqual({ maxConcurrentRuns: 20, maxTokensPerDay: 1000 });
    expect(limitsFor('globex', fleet)).toEqual({ maxConcurrentRuns: 5, maxTokensPerDay: 1000 });
    expect(limitsFor('globex', undefined)).toEqual({});
  });

  it('refuses a start with the quota, its limit and when it resets', () => {
    expect(startRefusal('acme', { maxTokensPerDay: 100 }, { ...counts, tokensToday: 100 }, now)).toEqual({
      quota: 'maxTokensPerDay',
      tenant: 'acme',
      limit: 100,
      resetsAt: '2026-11-27T00:00:00.000Z',
    });
    const starts = [now - 50_000, now - 20_000, now - 5_000];
    // Two a minute: the second-newest start leaves the window first enough to let one more in.
    expect(
      startRefusal('acme', { maxRunsPerMinute: 2 }, { ...counts, recentStarts: starts }, now),
    ).toMatchObject({
      quota: 'maxRunsPerMinute',
      resetsAt: new Date(now - 20_000 + 60_000).toISOString(),
    });
    expect(startRefusal('acme', { maxConcurrentRuns: 1 }, { ...counts, running: ['w1'] }, now)).toEqual({
      quota: 'maxConcurrentRuns',
      tenant: 'acme',
      limit: 1,
    });
    expect(
      startRefusal(
        'acme',
        { maxConcurrentRuns: 2, maxRunsPerMinute: 4 },
        { ...counts, running: ['w1'], recentStarts: starts },
        now,
      ),
    ).toBeUndefined();
    expect(tokenRefusal('', { maxTokensPerDay: 10 }, 9, now)).toBeUndefined();
    expect(tokenRefusal('', { maxTokensPerDay: 10 }, 10, now)?.quota).toBe('maxTokensPerDay');
  });

  it('fails at start-up on an unknown quota or a limit that is not a whole number', () => {
    expect(() => validateQuotas('createAgentWorker', { perTenant: { maxRuns: 3 } as never })).toThrow(
      /unknown quota quotas\.perTenant\.maxRuns; use maxTokensPerDay, maxRunsPerMinute, maxConcurrentRuns/,
    );
    expect(() => validateQuotas('Agent "a"', { tenants: { acme: { maxConcurrentRuns: 1.5 } } })).toThrow(
      ConfigurationError,
    );
  });
});

describe('usage queries', () => {
  it('reads durations back from now and dates', () => {
    expect(parseTimePoint('7d', now).getTime()).toBe(now - 7 * 86_400_000);
    expect(parseTimePoint('30m', now).getTime()).toBe(now - 1_800_000);
    expect(parseTimePoint('2026-11-01').toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(() => parseTimePoint('soon')).toThrow(/"soon" is not a time: give a duration back from now/);
  });

  it('refuses an unknown groupBy and a price that is not a number', () => {
    expect(() => usageFilter({ groupBy: 'week' as never })).toThrow(
      /groupBy must be one of tenant, agent, model, day/,
    );
    expect(() => usageFilter({ pricing: { x: { input: 1 } as never } })).toThrow(
      /pricing\["x"\] needs input and output/,
    );
  });
});
