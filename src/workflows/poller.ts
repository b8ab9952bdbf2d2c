import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { AgentActivities } from '../activities/index.ts';
import { idPart } from '../common/ids.ts';
import { continueAsNewOnTargetVersion, targetVersionChanged } from '../deploy/upgrade-on-continue-as-new.ts';
import {
  DEFAULT_POLL_PROMPT,
  fillTemplate,
  type PolledItem,
  type PollerInput,
  type PollerState,
} from '../common/poller.ts';
import { pollerStateQuery } from '../common/workflow-definitions.ts';
import { agentMemo } from '../visibility/search-attributes.ts';
import { agentRun } from './agent-run.ts';
import { deliverToSession } from './deliver-to-session.ts';
import { recordSdkFlags } from './sdk-flags.ts';
import { checkWorkflowInput } from '../contract/check-input.ts';

const activities = proxyActivities<AgentActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 3, initialInterval: '1 second', maximumInterval: '10 seconds' },
});

/** Polls per run before continuing as new (the cursor goes along), whatever Temporal suggests. */
const POLLS_PER_RUN = 200;

/**
 * A poller (for sources without push): polls its source every `everyMs` on a durable timer, keeps
 * the cursor in workflow state (carried across continue-as-new), and starts one run (or session
 * message) per new item with an id derived from the item's id, so a poll repeated after a crash
 * starts nothing twice. A poll that fails is shown in the details and tried again next time.
 */
export async function agentPoller(input: PollerInput): Promise<void> {
  recordSdkFlags();
  checkWorkflowInput('agentPoller', input);
  const state: PollerState = { cursor: input.cursor, polls: 0, started: 0, lastError: undefined };
  setHandler(pollerStateQuery, () => state, {
    description: 'Where the poller stands: its source, cursor and the items it has handed on.',
  });
  for (let round = 0; ; round++) {
    if (round > 0) await sleep(input.everyMs);
    try {
      const { items, cursor } = await activities.pollSource({
        agent: input.agent,
        source: input.source,
        credentialKey: input.credentialKey,
        ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
        ...(state.cursor !== undefined ? { cursor: state.cursor } : {}),
      });
      await Promise.all(items.map((item) => start(input, item)));
      state.started += items.length;
      state.cursor = cursor;
      state.lastError = undefined;
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const cause = error.cause instanceof ApplicationFailure ? error.cause.message : error.message;
      state.lastError = cause;
    }
    state.polls += 1;
    setCurrentDetails(
      state.lastError
        ? `**Last poll failed** (${state.polls} polls): ${state.lastError.split('\n')[0]}`
        : `**${state.polls} polls**, ${state.started} items started · every ${Math.round(input.everyMs / 1000)} s`,
    );
    // After the poll, never inside it: a new worker version that is now the target takes the next polls.
    if (round + 1 >= POLLS_PER_RUN || workflowInfo().continueAsNewSuggested || targetVersionChanged()) {
      await continueAsNewOnTargetVersion<typeof agentPoller>({
        ...input,
        ...(state.cursor ? { cursor: state.cursor } : {}),
      });
    }
  }
}

/** Starts the item's run (or session message) once: a second start of the same id is a duplicate. */
async function start(input: PollerInput, item: PolledItem): Promise<void> {
  const id = `poll-${input.pollerId}-${idPart(item.id)}`.slice(0, 250);
  const template = (input.session?.prompt ?? input.run?.prompt) || DEFAULT_POLL_PROMPT;
  const prompt = fillTemplate(template, item, input.source);
  if (input.session) {
    const sessionId = fillTemplate(input.session.id, item, input.source);
    await deliverToSession(
      { agent: input.agent, sessionId, ...(input.tenant !== undefined ? { tenant: input.tenant } : {}) },
      prompt,
      id,
    );
    return;
  }
  try {
    await startChild(agentRun, {
      workflowId: id,
      args: [{ agent: input.agent, prompt, ...(input.tenant !== undefined ? { tenant: input.tenant } : {}) }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      memo: agentMemo(input.agent, input.tenant),
      staticSummary: `${input.agent} run · ${input.source} poller ${input.pollerId}`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
