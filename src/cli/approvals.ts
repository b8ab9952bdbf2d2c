import type { AgentEvent } from '../common/events.ts';
import type { LiveView } from './live-view.ts';
import { asText, note } from './output.ts';
import { confirm } from './secret-input.ts';

/** What can decide a call that waits for approval: a run's handle or a chat session. */
export interface Approver {
  approve(callId: string, opts?: { note?: string }): Promise<void>;
  reject(callId: string, reason: string): Promise<void>;
}

/**
 * Decides an `approval_requested` event: approves it with `--approve-all`, asks y/n when standard
 * input is a terminal, and otherwise says how to decide it from another terminal.
 */
export async function decideApproval(
  event: AgentEvent,
  approver: Approver,
  opts: { approveAll?: boolean; workflowId: string; view: LiveView; ask: boolean },
): Promise<void> {
  const callId = asText(event.payload.call_id);
  const call = `${asText(event.payload.tool)}(${asText(event.payload.args)})`;
  if (opts.approveAll) return approver.approve(callId, { note: 'approved with --approve-all' });
  if (!opts.ask || !process.stdin.isTTY) {
    note(
      `${call} waits for approval: toolkit-agent runs approve ${opts.workflowId} ${callId} (or runs reject ...)`,
    );
    return;
  }
  opts.view.stop();
  const yes = await confirm(`Allow ${call}?`);
  opts.view.resume();
  if (yes) await approver.approve(callId, { note: 'approved at the terminal' });
  else await approver.reject(callId, 'declined at the terminal');
}
