import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { McpConnectionPool } from '../../src/mcp/pool.ts';
import { EVERYTHING_SERVER, pidsWith } from '../support/mcp-servers.ts';

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await sleep(50);
  if (!check()) throw new Error(`Timed out waiting for ${what}`);
}

describe('the MCP connection pool', () => {
  const marker = `--toolkit-pool-test=${randomUUID()}`;
  const server = { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio', marker] };
  const pool = new McpConnectionPool({ idleTimeoutMs: 400 });
  afterAll(() => pool.close());

  it('closes a connection left idle (its stdio process stops), never one in use, and connects again on the next use', async () => {
    const first = pool.get('everything', server, { agent: 'a' });
    expect((await first.tools()).map((tool) => tool.name)).toContain('echo');
    const [pid] = pidsWith(marker);
    expect(pid).toBeDefined();

    // In use for longer than the idle timeout: kept.
    await first.use(() => sleep(700));
    expect(pool.evictIdle()).toBe(0);
    expect(pidsWith(marker)).toEqual([pid]);

    // Then idle: the pool's sweep closes it and the process ends.
    await waitFor(() => pool.size === 0, 'the idle connection to be evicted');
    await waitFor(() => pidsWith(marker).length === 0, 'the server process to stop');

    const second = pool.get('everything', server, { agent: 'a' });
    expect(second).not.toBe(first);
    expect((await second.tools()).length).toBeGreaterThan(0);
    expect(pidsWith(marker)).toHaveLength(1);
    expect(pidsWith(marker)[0]).not.toBe(pid);
  });

  it('refuses an idle timeout that is not above 0', () => {
    expect(() => new McpConnectionPool({ idleTimeoutMs: 0 })).toThrow(/mcpIdleTimeoutMs must be above 0/);
  });
});
