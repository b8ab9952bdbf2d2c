import { DefaultFailureConverter } from '@temporalio/common';

/**
 * The failure converter of encrypted workers: Temporal's default one with `encodeCommonAttributes`, so
 * an error's message and stack trace (which can quote tool output and prompts) travel as a payload
 * (`encodedAttributes`), encrypted like every other, and the history keeps only "Encoded failure".
 * Clients decode it (any Temporal client does, given the codec), and so does the codec server for the
 * Temporal UI. Without encryption a worker keeps Temporal's default converter: the message stays
 * readable to `temporal workflow describe` and the UI, which cannot decode what nothing encrypts.
 * Bundled into the workflows (`buildAgentWorkflowBundle({ encodeFailures: true })`) and loaded by
 * `createAgentWorker` when encryption is configured.
 * See https://typescript.temporal.io/api/classes/common.DefaultFailureConverter
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });

/**
 * Found verbatim in every workflow bundle that holds this converter: how `createAgentWorker` tells
 * that a prebuilt bundle given with encryption encodes failure text.
 */
export const ENCODED_FAILURES_MARK = 'toolkit-agent: workflow failures encoded';
