import type { Context } from '@temporalio/activity';
import type { CallModelInput, CarriedCalls, CarriedOutcome, ModelStep, ToolSchema } from '../common/index.ts';
import type { OpeningHeader } from '../common/control.ts';
import { carriedNeedWorkflow, runCarriedCalls } from '../fast-tools/carried-calls.ts';
import { stepCache } from '../caching/step-cache.ts';
import { noteCacheStep } from '../caching/step-note.ts';
import { StepContext } from '../context/step-context.ts';
import { ToolkitError } from '../errors.ts';
import { mcpSchemas } from '../mcp/run-tools.ts';
import { checkAnswer } from '../output/check.ts';
import { finalAnswerTool, takeFinalAnswer } from '../output/final-answer-tool.ts';
import { TextDeltaBatcher } from './live-text.ts';
import type { RegisteredAgent } from './registered-agent.ts';
import { lookupModel } from './registry.ts';
import { writeAttemptOf } from './write-attempt.ts';
import { checkTokenQuota, recordRun, recordStep } from '../usage/recorder.ts';
import { completeRunLine } from '../usage/run-line.ts';
import { withFrontendTools } from '../frontend-tools/model-tools.ts';
import { guardrailContext } from '../guardrails/check-activity.ts';
import { StreamingOutputChecks } from '../guardrails/streaming.ts';
import type { GuardrailTrip } from '../guardrails/recorded.ts';

/**
 * One model step: builds what the model sees from the conversation before `seq` in the memory store
 * (within the agent's context budget, see src/context), asks the model, stores its answer at `seq`
 * (replacing what a failed attempt may have stored, never what a later attempt stored) and returns the small delta the workflow needs.
 * A request over the budget is not sent, and a provider's "prompt too long" is not thrown: both come
 * back as `overflow`, which the workflow answers by compacting. Heartbeats while the model thinks,
 * so a dead worker is noticed quickly. In a structured run the model is asked natively (adapters
 * with `structuredOutput: 'native'`) or through a `final_answer` tool, and an answer without tool
 * calls is checked against the schema here (`ModelStep.output`), never in workflow code. A step may
 * carry the fast calls of the step before (`input.carried`): it runs them first.
 */
export async function callModel(
  agent: RegisteredAgent,
  input: CallModelInput,
  context: Context,
  opening?: FirstStepOfRun,
): Promise<ModelStep> {
  // Frequent local heartbeats (the worker throttles what it sends) also carry cancellation here quickly.
  const every = Math.min(1000, Math.max(100, agent.timeouts.modelHeartbeatMs / 3));
  const interval = setInterval(() => context.heartbeat(), every);
  try {
    if (!input.carried) return await askModel(agent, input, context, { opening });
    return await carryingStep(agent, input, input.carried, context);
  } finally {
    clearInterval(interval);
  }
}

/**
 * A step that carries the fast calls of the step before: they run first, then the model is asked.
 * Once they have run, their outcomes are returned whatever happens next: when one needs the
 * workflow, the run was stopped or the model step failed, the step is `notTaken` and the workflow
 * takes it again as a step of its own (with its own retries), so no call runs twice for the model's sake.
 */
async function carryingStep(
  agent: RegisteredAgent,
  input: CallModelInput,
  carried: CarriedCalls,
  context: Context,
): Promise<ModelStep> {
  const outcomes = await runCarriedCalls(agent, input, carried, context);
  const notTaken: ModelStep = { text: '', toolCalls: [], carried: outcomes, notTaken: true };
  if (carriedNeedWorkflow(outcomes) || context.cancellationSignal.aborted) return notTaken;
  try {
    return { ...(await askModel(agent, input, context, { settled: outcomes })), carried: outcomes };
  } catch (error) {
    context.log.info(
      `The model step after ${outcomes.length} fast call(s) failed; the run takes it again as a step of its own: ${
        error instanceof Error ? error.message.split('\n')[0] : String(error)
      }`,
    );
    return notTaken;
  }
}

/** The first model step of a run, taken by its opening step (src/activities/open-run.ts). */
export interface FirstStepOfRun {
  /** Stops the step: the activity's cancellation, or the turn's deadline and the agent's model timeout. */
  signal: AbortSignal;
  /** For the first live-text batch. */
  header: OpeningHeader;
}

/**
 * The model's part of a step. `settled`: what became of the calls it carried; `opening`: a run's
 * first step, taken by its opening step. Both are said by the first live-text batch.
 */
async function askModel(
  agent: RegisteredAgent,
  input: CallModelInput,
  context: Context,
  { settled, opening }: { settled?: CarriedOutcome[]; opening?: FirstStepOfRun | undefined } = {},
): Promise<ModelStep> {
  const mcp = await mcpSchemas(agent, input.tools, input.tenant);
  const tools = withFrontendTools(
    input.tools
      .map((name) => agent.schemas.get(name) ?? mcp.get(name))
      .filter((s): s is ToolSchema => s !== undefined),
    input.frontendTools,
  );
  const model = lookupModel(agent, input.model);
  const output = input.output;
  const native = output !== undefined && model.structuredOutput === 'native';
  if (output && !native) tools.push(finalAnswerTool(output.schema));
  const view = await StepContext.load({
    ...input,
    context: agent.context,
    store: agent.memoryStore,
    model,
    tools,
    attempt: writeAttemptOf(context),
  });
  const overBudget = input.sendOverBudget ? undefined : view.overBudget();
  if (overBudget) return { text: '', toolCalls: [], overflow: overBudget, context: view.report() };
  // A tenant whose daily tokens are spent: the loop ends the run with `quota` (a non-retryable failure).
  if (agent.usage) await checkTokenQuota(agent.usage, input);
  // Streaming output checks read the live text before each batch goes out (src/guardrails/streaming.ts).
  const streaming = input.textDeltaBatchMs
    ? StreamingOutputChecks.of(
        agent.guardrails,
        guardrailContext(agent.name, input.tenant, context),
        input.guardrails,
      )
    : undefined;
  const deltas = input.textDeltaBatchMs
    ? TextDeltaBatcher.forActivity(context, input.seq, input.textDeltaBatchMs, {
        structured: output !== undefined,
        channel: agent.liveChannel,
        ...(streaming ? { gate: (soFar: string) => streaming.allows(soFar) } : {}),
      })
    : undefined;
  const signal = opening?.signal ?? context.cancellationSignal;
  const cache = stepCache(input.caching ?? agent.caching, {
    agent: agent.name,
    conversationId: input.conversationId,
    waitsForPeople: agent.approval !== undefined || agent.authorization !== undefined,
    chat: context.info.workflowType === 'chatSession',
  });
  if (settled) deltas?.sayFirst({ settled });
  if (opening) deltas?.sayFirst({ opening: opening.header });
  const sentAt = Date.now();
  try {
    const generated = await model
      .generate({
        messages: view.messages,
        tools,
        signal: streaming ? AbortSignal.any([signal, streaming.signal]) : signal,
        ...(deltas ? { onTextDelta: (text: string) => deltas.push(text) } : {}),
        ...(native ? { output: { schema: output.schema } } : {}),
        ...(cache ? { cache } : {}),
      })
      .catch(async (error: unknown) => {
        if (streaming?.trip) return streaming.trip;
        const overflow = await view.overflowFrom(error);
        if (!overflow) throw error;
        return overflow;
      });
    if ('check' in generated) return withdrawn(generated, deltas);
    if ('reason' in generated)
      return { text: '', toolCalls: [], overflow: generated, context: view.report() };
    const response = output && !native ? takeFinalAnswer(generated, output.schema) : generated;
    // The live text reaches the workflow before the step's result does.
    await deltas?.close();
    // A streaming check tripped on the last batch: the answer is withdrawn, never stored.
    if (streaming?.trip) return withdrawn(streaming.trip, deltas);
    const ids = new Set<string>();
    for (const call of response.toolCalls) {
      if (!call.id || ids.has(call.id)) {
        throw new ToolkitError(
          'MODEL_RESPONSE',
          `The model returned tool calls without unique ids (${call.id}).`,
          {
            retryable: true,
          },
        );
      }
      ids.add(call.id);
    }
    await agent.memoryStore.append(
      input.conversationId,
      input.seq,
      [
        {
          role: 'assistant',
          content: response.text,
          ...(response.toolCalls.length ? { toolCalls: response.toolCalls } : {}),
          ...(response.reasoning ? { reasoning: response.reasoning } : {}),
          ...(response.providerData ? { providerData: response.providerData } : {}),
          ...(input.labelAgent ? { agent: agent.name } : {}),
        },
      ],
      writeAttemptOf(context),
    );
    const note =
      cache &&
      (await noteCacheStep(
        agent.memoryStore,
        { conversationId: input.conversationId, seq: input.seq, sentAt },
        { messages: view.messages, tools, cache },
        view.report(),
        response.usage,
      ));
    const usage = note && response.usage ? { ...response.usage, cache: note } : response.usage;
    if (agent.usage) await recordStep(agent.usage, input, usage, context);
    await view.settle(response.usage);
    const checked =
      output && response.toolCalls.length === 0 ? checkAnswer(response.text, output.schema) : undefined;
    // An answer ends the turn: its ledger line is written now, which spares the turn a local activity at its end.
    const answered = response.toolCalls.length === 0 && (checked === undefined || checked.ok);
    let runRecorded = false;
    if (answered && agent.usage && input.runLine) {
      await recordRun(agent.usage, completeRunLine(input.runLine, input, Date.now()), context);
      runRecorded = true;
    }
    const streamed = deltas?.streamed(response.text, context.info.attempt);
    return {
      text: response.text,
      toolCalls: response.toolCalls,
      ...(streamed ? { streamed } : {}),
      ...(checked ? { output: checked } : {}),
      ...(response.reasoning ? { reasoning: response.reasoning } : {}),
      ...(usage ? { usage } : {}),
      ...(runRecorded ? { runRecorded } : {}),
      context: view.report(),
    };
  } catch (error) {
    // What readers got of a step that did not answer is kept by the run (a stopped turn's answer).
    await deltas?.abandon();
    throw error;
  } finally {
    void deltas?.close();
  }
}

/** A step whose answer a streaming output check withdrew: nothing is stored, the run ends with the trip. */
async function withdrawn(trip: GuardrailTrip, deltas: TextDeltaBatcher | undefined): Promise<ModelStep> {
  await deltas?.close();
  return { text: '', toolCalls: [], guardrail: trip };
}
