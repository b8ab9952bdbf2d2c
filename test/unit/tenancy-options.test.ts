import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError, RateLimitError } from '../../src/errors.ts';
import { checkFairness, runPriority } from '../../src/fairness/priority.ts';
import { mcpServerQueues, rateLimitedQueues, toolQueues } from '../../src/rate-limits/queues.ts';
import { longRateLimit } from '../../src/rate-limits/retry-after.ts';
import { SecretSet } from '../../src/redaction.ts';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';

class KeyedTool extends BaseConnectorTool {
  readonly description = 'A tool';
  readonly parameters = z.object({});
  readonly name: string;
  constructor(name: string, credentialKey: string) {
    super({ credentialKey });
    this.name = name;
  }
  async run(): Promise<ToolOutput> {
    return { text: '', metadata: {} };
  }
}

describe('fairness options', () => {
  it('keys a run by its tenant with its weight and priority, and by a digest when the tenant is over 64 bytes', () => {
    const fairness = { weights: { acme: 3 }, defaultWeight: 0.5 };
    expect(runPriority('acme', fairness, 1)).toEqual({
      fairnessKey: 'acme',
      fairnessWeight: 3,
      priorityKey: 1,
    });
    expect(runPriority('other', fairness, undefined)).toEqual({ fairnessKey: 'other', fairnessWeight: 0.5 });
    expect(runPriority(undefined, fairness, undefined)).toBeUndefined();
    expect(runPriority('acme', { disabled: true }, undefined)).toBeUndefined();
    const long = 'tenant-'.repeat(20);
    const key = runPriority(long, undefined, undefined)!.fairnessKey!;
    expect(key).toMatch(/^sha256:[0-9a-f]{48}$/);
    expect(runPriority(long, undefined, undefined)!.fairnessKey).toBe(key);
  });

  it('refuses weights and priorities out of range, naming them', () => {
    expect(() => checkFairness({ weights: { acme: 5000 } })).toThrow(ConfigurationError);
    expect(() => checkFairness({ defaultWeight: -1 })).toThrow(
      /defaultWeight must be a number from 0.001 to 1000/,
    );
    expect(() => runPriority('acme', undefined, 0)).toThrow(/priority must be an integer from 1/);
    expect(() => runPriority('acme', undefined, 2.5)).toThrow(ConfigurationError);
  });
});

describe('rate limit options', () => {
  it('gives each limited key a queue named after the worker queue, at the lowest rate declared', () => {
    const queues = rateLimitedQueues('agents', [
      { where: 'createAgentWorker', limits: { github: { perSecond: 5 } } },
      { where: 'Agent "a"', limits: { github: { perSecond: 2 }, linear: { perSecond: 1 } } },
    ]);
    expect(queues.get('github')).toEqual({
      credentialKey: 'github',
      taskQueue: 'agents@rate-limit:github',
      perSecond: 2,
      per: 'account',
    });
    expect(queues.get('linear')?.perSecond).toBe(1);
    expect(toolQueues([new KeyedTool('issues', 'github'), new KeyedTool('mail', 'mail')], queues)).toEqual({
      issues: 'agents@rate-limit:github',
    });
    expect(toolQueues([new KeyedTool('mail', 'mail')], queues)).toBeUndefined();
  });

  it('refuses a rate that is not a positive number, naming where and the key', () => {
    expect(() =>
      rateLimitedQueues('q', [{ where: 'Agent "a"', limits: { github: { perSecond: 0 } } }]),
    ).toThrow(/Agent "a": rateLimits\["github"\]\.perSecond must be a number above 0 \(got 0\)/);
  });

  it("is each account's rate unless a place declaring the key says the fleet's; a bad `per` is named", () => {
    const queues = rateLimitedQueues('q', [
      { where: 'createAgentWorker', limits: { github: { perSecond: 5, per: 'fleet' } } },
      { where: 'Agent "a"', limits: { github: { perSecond: 2 }, slack: { perSecond: 1 } } },
    ]);
    expect(queues.get('github')).toMatchObject({ perSecond: 2, per: 'fleet' });
    expect(queues.get('slack')).toMatchObject({ per: 'account' });
    expect(() =>
      rateLimitedQueues('q', [
        { where: 'Agent "a"', limits: { github: { perSecond: 2, per: 'tenant' as 'account' } } },
      ]),
    ).toThrow(/Agent "a": rateLimits\["github"\]\.per must be 'account' or 'fleet' \(got "tenant"\)/);
  });

  it('routes the tools of an MCP server whose credential key is limited to its queue', () => {
    const queues = rateLimitedQueues('q', [{ where: 'w', limits: { github: { perSecond: 2 } } }]);
    const servers = new Map([
      ['gh', { url: 'https://example.test/mcp', credentialKey: 'github' }],
      ['local', { command: 'node', args: ['server.js'] }],
      ['open', { url: 'https://example.test/other' }],
    ]);
    expect(mcpServerQueues(servers, queues)).toEqual({ gh: 'q@rate-limit:github' });
    expect(mcpServerQueues(servers, new Map())).toBeUndefined();
  });

  it('waits on a timer only for a rate limit whose Retry-After is over the threshold', () => {
    const secrets = new SecretSet();
    expect(longRateLimit(new RateLimitError('slow', { retryAfterMs: 30_000 }), 10_000, secrets)).toEqual({
      retryAfterMs: 30_000,
      message: 'slow',
    });
    expect(
      longRateLimit(new RateLimitError('slow', { retryAfterMs: 10_000 }), 10_000, secrets),
    ).toBeUndefined();
    expect(longRateLimit(new RateLimitError('slow'), 10_000, secrets)).toBeUndefined();
    expect(longRateLimit(new Error('other'), 10_000, secrets)).toBeUndefined();
  });
});
