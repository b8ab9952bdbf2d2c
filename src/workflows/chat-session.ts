import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  MAX_PROMPT_CHARS,
  RECENT_TURN_IDS,
  type ChatSessionInput,
  type ChatSessionState,
  type ChatTurnOutput,
  type RunningTurn,
  type SendInput,
} from '../common/chat.ts';
import {
  deliverSignal,
  deliverUpdate,
  sendUpdate,
  sessionStateQuery,
} from '../common/workflow-definitions.ts';
import { sessionMovingRefusal } from '../deploy/session-moving.ts';
import { continueAsNewOnTargetVersion, targetVersionChanged } from '../deploy/upgrade-on-continue-as-new.ts';
import { setControlHandlers } from './control-handlers.ts';
import { EventLog, type Emit } from './event-log.ts';
import { quickActivities } from './quick-activities.ts';
import { RunControl } from './run-control.ts';
import { runTurn } from './turn.ts';
import { recordSdkFlags } from './sdk-flags.ts';
import { showSessionIdle } from '../visibility/current-details.ts';
import { checkWorkflowInput } from '../contract/check-input.ts';
import { rememberSessionTurn } from '../agent-memory/workflow-memory.ts';

/**
 * A session continues as new, between turns, once its run's history holds this many events (a plain
 * turn adds about 13), whatever Temporal suggests (by default at some 4,000 events). A session
 * evicted from the worker's workflow cache replays its run's history on its next message: replaying
 * a turn costs about what the turn did (bench/open-sessions.ts: an evicted session's second turn took
 * about twice the CPU of a cached one's), so the bound keeps that replay to a few turns, and a cached
 * session's event log to their events. Continuing as new costs a workflow task and one action.
 */
export const SESSION_RUN_EVENTS = 100;

/** Marks histories whose sessions continue as new at {@link SESSION_RUN_EVENTS}; older histories replay without. */
export const BOUNDED_SESSION_RUNS = 'bounded-session-runs';

/**
 * A chat session (docs/chat.md): one long-running workflow per session id. Each `send` update
 * runs one turn over the stored conversation; turns run one at a time, in the order they arrived.
 * The workflow holds only counters; it continues-as-new when Temporal suggests it or its history reaches
 * {@link SESSION_RUN_EVENTS}, and no turn is running or waiting, and ends after `idleTimeoutMs` without a turn (a later `send` resumes it from
 * the stored conversation).
 */
export async function chatSession(input: ChatSessionInput): Promise<ChatSessionState> {
  recordSdkFlags();
  checkWorkflowInput('chatSession', input);
  // Handlers first: the first `send` arrives with the start (update-with-start).
  const state: ChatSessionState = input.state ?? { turns: 0, messageCount: 0, lastEventSeq: 0 };
  const events = new EventLog(state.lastEventSeq);
  // Turns take tickets and run in ticket order, one at a time (a flag would let two waiters in at once).
  let ready = Boolean(input.state); // a fresh run first reads where its stored conversation stands
  let nextTicket = 0;
  let serving = 0;
  const busy = (): boolean => serving < nextTicket;
  // The running turn's controls: `cancelTurn` stops it (the session goes on), approvals decide its calls.
  let current: RunControl | undefined;
  setControlHandlers(() => current, 'turn');
  // The turn that runs now, for readers that join it from its start (a page that reloads).
  let running: RunningTurn | undefined;
  // Turns being remembered in long-term memory: the session waits for them before it continues as new or ends.
  let remembering = 0;
  const remembered = (): boolean => remembering === 0;

  setHandler(
    sessionStateQuery,
    () => ({ ...state, lastEventSeq: events.lastSeq, busy: busy(), ...(running ? { running } : {}) }),
    {
      description:
        "The session's counters: turns taken, stored messages, the last event seq, whether a turn runs, and which.",
    },
  );
  /** Runs one turn when its ticket comes up: turns run one at a time, in the order they arrived. */
  const takeTurn = async ({
    prompt,
    turnId,
    output,
    outputRepairs,
    frontendTools,
  }: SendInput): Promise<ChatTurnOutput> => {
    state.recentTurnIds = [...(state.recentTurnIds ?? []), turnId].slice(-RECENT_TURN_IDS);
    const ticket = nextTicket++;
    await condition(() => ready && serving === ticket);
    const control = new RunControl();
    current = control;
    const startedAt = events.lastSeq;
    running = { turn_id: turnId, after_seq: startedAt };
    const turn = state.turns + 1;
    try {
      const result = await runTurn(
        {
          agent: state.agent ?? input.agent,
          prompt,
          tenant: input.tenant,
          maxIterations: input.maxIterations,
          skills: input.skills,
          model: input.model,
          ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
          ...(input.limits ? { limits: input.limits } : {}),
          ...(output ? { output } : {}),
          ...(outputRepairs !== undefined ? { outputRepairs } : {}),
          ...(frontendTools?.length ? { frontendTools } : {}),
          ...(input.caching !== undefined ? { caching: input.caching } : {}),
          ...(input.guardrails !== undefined ? { guardrails: input.guardrails } : {}),
        },
        input.sessionId,
        events,
        {
          startSeq: state.messageCount,
          tags: { turn_id: turnId },
          control,
          admit: { release: true },
          ...(state.agent !== undefined ? { labelAgent: true } : {}),
        },
      );
      state.turns = turn;
      // After a handoff the next turns go to the agent that now holds the conversation.
      if (result.metadata.agent !== undefined) state.agent = result.metadata.agent;
      const fromSeq = state.messageCount;
      state.messageCount = result.messageCount;
      const { messageCount, memory, ...answer } = result;
      // Off the answer's path: the answer goes back now, the turn is remembered beside it.
      if (memory && answer.metadata.stop_reason !== 'guardrail') {
        remembering += 1;
        const turnEvent: Emit = (type, message, payload) =>
          events.emit(type, message, { ...payload, turn_id: turnId });
        const agent = state.agent ?? input.agent;
        const answered = {
          agent,
          ...(input.tenant === undefined ? {} : { tenant: input.tenant }),
          sessionId: input.sessionId,
          turnId,
          fromSeq,
          toSeq: messageCount,
          memory,
        };
        void rememberSessionTurn(state, answered, turnEvent).finally(() => (remembering -= 1));
      }
      showSessionIdle(turn, {
        stopReason: answer.metadata.stop_reason,
        iterations: answer.metadata.iterations,
      });
      return { ...answer, turn, events: events.since(startedAt) };
    } catch (error) {
      showSessionIdle(turn, { error });
      throw error;
    } finally {
      control.finish();
      current = undefined;
      running = undefined;
      serving += 1;
    }
  };
  /** Refuses what no turn can run (an empty or oversized prompt, no turn id), as the sender's error. */
  const checkSend = ({ prompt, turnId }: SendInput): void => {
    if (typeof prompt !== 'string' || prompt.trim() === '') {
      throw ApplicationFailure.nonRetryable('The prompt is empty: send a non-empty string.', 'InvalidPrompt');
    }
    if (prompt.length > MAX_PROMPT_CHARS) {
      throw ApplicationFailure.nonRetryable(
        `The prompt has ${prompt.length} characters; a turn takes at most ${MAX_PROMPT_CHARS}. Send a shorter one.`,
        'InvalidPrompt',
      );
    }
    if (typeof turnId !== 'string' || turnId === '') {
      throw ApplicationFailure.nonRetryable('Each send needs a turnId.', 'InvalidPrompt');
    }
  };
  /**
   * Refuses a message that arrives when a newer worker version is the target and no turn runs: the
   * session continues as new onto that version in this same task, and the sender's next attempt is
   * answered there (a message that arrives while a turn runs waits for it, on this version).
   */
  const refuseWhileMoving = (): void => {
    if (targetVersionChanged() && !busy()) throw sessionMovingRefusal();
  };
  const taken = (turnId: string): boolean => state.recentTurnIds?.includes(turnId) ?? false;
  /** Queues a message whose answer no one waits for; false when the session already took its id. */
  const deliver = (send: SendInput): boolean => {
    if (taken(send.turnId)) return false;
    void takeTurn(send).catch(() => undefined); // a failed turn is in its events; the session goes on
    return true;
  };
  setHandler(deliverUpdate, (send) => ({ duplicate: !deliver(send) }), {
    validator: (send: SendInput) => {
      checkSend(send);
      refuseWhileMoving();
    },
    description:
      'Queues a message ({ prompt, turnId }) as a turn and answers { duplicate } at once; a turnId already taken runs nothing.',
  });
  setHandler(
    deliverSignal,
    (send) => {
      try {
        checkSend(send);
      } catch {
        return; // a signal has no sender to tell
      }
      deliver(send);
    },
    {
      description: 'As the toolkit.deliver update, for senders that cannot send updates (schedules).',
    },
  );
  setHandler(sendUpdate, takeTurn, {
    description: 'Runs a turn ({ prompt, turnId }) and answers with its result and events once it is done.',
    validator: (send: SendInput) => {
      checkSend(send);
      refuseWhileMoving();
      const next = state.turns + (nextTicket - serving) + 1;
      if (send.expectedTurn !== undefined && send.expectedTurn !== next) {
        throw ApplicationFailure.nonRetryable(
          `This send expected to be turn ${send.expectedTurn}, but it would be turn ${next} of the session. ` +
            'Read the history and send again.',
          'OutOfOrderSend',
        );
      }
      // A message the session already took (a webhook delivered again): refused, never run twice.
      if (taken(send.turnId)) {
        throw ApplicationFailure.nonRetryable(
          `The session already took message ${send.turnId}; it is not run again.`,
          'DuplicateTurn',
        );
      }
    },
  });

  if (!input.state) {
    Object.assign(
      state,
      await quickActivities.loadSession({ agent: input.agent, sessionId: input.sessionId }),
    );
    ready = true;
  }
  const idleTimeout = input.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  // Continue as new when Temporal suggests it, when the run's history is long enough that replaying it
  // would cost more than a few turns, or when a new worker version is the target (a pinned session
  // moves to it between turns: the turn in progress finishes on the code it began with). The marker
  // is asked for only once the history is that long: a run recorded before the bound replays as it went.
  const continueAsNewDue = (): boolean =>
    workflowInfo().continueAsNewSuggested ||
    (workflowInfo().historyLength >= SESSION_RUN_EVENTS && patched(BOUNDED_SESSION_RUNS)) ||
    targetVersionChanged();
  for (;;) {
    const woke = await condition(() => busy() || continueAsNewDue(), idleTimeout);
    if (!busy() && continueAsNewDue()) {
      await condition(remembered);
      events.release();
      await condition(() => allHandlersFinished() && remembered());
      if (!busy()) {
        return continueAsNewOnTargetVersion<typeof chatSession>({
          ...input,
          state: { ...state, lastEventSeq: events.lastSeq },
        });
      }
    }
    if (!woke && !busy() && allHandlersFinished()) break;
    await condition(() => !busy());
  }
  await condition(remembered);
  events.finish();
  await condition(() => allHandlersFinished() && remembered());
  return { ...state, lastEventSeq: events.lastSeq };
}
