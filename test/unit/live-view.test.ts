import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveView } from '../../src/cli/live-view.ts';

afterEach(() => vi.restoreAllMocks());

/** What the live view writes on standard error, piece by piece. */
function captureStderr(): string[] {
  const written: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  return written;
}

describe('the live view of a run', () => {
  it('prints a warning event (MCP servers left out of the run) on standard error', () => {
    const written = captureStderr();
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

  it('says a failed tool call whole: the fix at the end of a long message is not cut off', () => {
    const written = captureStderr();
    const view = new LiveView('human');
    const error =
      'No credential "custom_api" in the credential store: store it with `toolkit-agent creds set custom_api` ' +
      "(in code: store.put({ name: 'custom_api', type: 'bearer', token: '...' })).";
    const at = new Date().toISOString();
    view.event({
      seq: 1,
      type: 'tool_called',
      message: '',
      payload: { tool: 'custom_api', call_id: 'c1' },
      timestamp: at,
    });
    view.event({
      seq: 2,
      type: 'tool_failed',
      message: 'failed',
      payload: { tool: 'custom_api', call_id: 'c1', error },
      timestamp: at,
    });
    view.stop();
    expect(written.join('')).toContain('store it with `toolkit-agent creds set custom_api`');
  });

  it('prints a guardrail that tripped: which check, and what it said', () => {
    const written = captureStderr();
    const view = new LiveView('human');
    view.event({
      seq: 3,
      type: 'guardrail_tripped',
      message: 'Guardrail "pii" tripped: personal data found (card)',
      payload: { kind: 'output', check: 'pii', reason: 'personal data found (card)' },
      timestamp: new Date().toISOString(),
    });
    view.stop();
    expect(written.join('')).toMatch(/✗ Guardrail "pii" tripped: personal data found \(card\)/);
  });
});
