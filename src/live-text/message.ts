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
