import { DefaultFailureConverter } from '@temporalio/common';

/**
 * The failure converter of the agent workflows and activities: Temporal's default one with
 * `encodeCommonAttributes`, so an error's message and stack trace (which can quote tool output and
 * prompts) travel as a payload (`encodedAttributes`) and the history keeps only "Encoded failure".
 * With `encryption` configured that payload is encrypted like every other; clients decode it (any
 * Temporal client does, given the codec), and so does the codec server for the Temporal UI.
 * Bundled into the workflows (`buildAgentWorkflowBundle`) and loaded by `createAgentWorker`.
 * See https://typescript.temporal.io/api/classes/common.DefaultFailureConverter
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
