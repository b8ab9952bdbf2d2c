import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveView } from '../../src/cli/live-view.ts';

afterEach(() => vi.restoreAllMocks());

describe('the live view of a run', () => {
  it('prints a warning event (MCP servers left out of the run) on standard error', () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const view = new LiveView('human');
    view.event({
      seq: 2,
      type: 'warning',
      message:
        'MCP servers left out of this run: "crm" (The MCP server "crm" refused the credential "crm" (401 Unauthorized))',
      payload: { level: 'warning', unavailable_mcps: [{ server: 'crm', reason: '401' }] },
      timestamp: new Date().toISOString(),
    });
    view.stop();
    expect(written.join('')).toMatch(/! MCP servers left out of this run: "crm"/);
  });
});
