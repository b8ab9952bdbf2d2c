import type { Sinks } from '@temporalio/workflow';
import type { AgentEvent } from '../common/events.ts';

/**
 * What a model step says live, outside any workflow: each piece of text the moment the model writes
 * it, when the step's first batch (what comes before its text) has been sent to the workflow, and
 * when the step has closed. With a channel, a step's text reaches readers this way only, and the
 * run records it once, from the step's result; without one, the text goes to the workflow in
 * batches (`toolkit.textDelta` signals), as `sent` messages say (docs/streaming.md).
 */
export type LiveTextMessage =
  | (LiveStepKey & {
      kind: 'text';
      /** Where `text` starts in what this attempt of the step has written. */
      offset: number;
      text: string;
      /**
       * The step's first batch says something before its text (what became of the calls it carried,
       * a run's opening): the run shows the step only once that batch arrives.
       */
      held?: true;
      /**
       * Held text of a run's first step whose first batch only starts the step: a reader that has
       * read the run from its start may show it at once (the step's start follows it).
       */
      opens?: true;
    })
  | (LiveStepKey & {
      /** A batch has been sent to the workflow. */
      kind: 'sent';
      /** The batch carried more than text (the step's start, a structured answer so far): read the run. */
      wake?: true;
    })
  | (LiveStepKey & {
      /** The step has written all its text (and sent its batches): its result follows. */
      kind: 'closed';
    });

/** The model step a message is about: its run, its position in the conversation, its attempt. */
export interface LiveStepKey {
  workflowId: string;
  runId: string;
  seq: number;
  attempt: number;
}

/**
 * An event of a run as its workflow logged it, said on the live channel by the worker that ran the
 * workflow task (readers learn of it without reading the run). `event` is left out when it is too
 * large for the channel: the reader then reads the run for it. The run's events query stays the
 * truth: a reader delivers these in `seq` order, each once, and reads the run when one is missing.
 */
export interface LiveEventMessage {
  workflowId: string;
  runId: string;
  seq: number;
  event?: AgentEvent;
}

/**
 * The workflow sink through which the agent workflows hand each event they log to their worker
 * (registered by `createAgentWorker`; Temporal calls it only for workflow tasks that are not replays).
 */
export interface LiveEventSinks extends Sinks {
  toolkitLiveEvents: { said(event: AgentEvent): void };
}
