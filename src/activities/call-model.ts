import type { Context } from '@temporalio/activity';
import type { CallModelInput, ModelStep, ToolSchema } from '../common/index.ts';
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

/**
 * One model step: builds what the model sees from the conversation before `seq` in the memory store
 * (within the agent's context budget, see src/context), asks the model, stores its answer at `seq`
 * (replacing what a failed attempt may have stored, never what a later attempt stored) and returns the small delta the workflow needs.
 * A request over the budget is not sent, and a provider's "prompt too long" is not thrown: both come
 * back as `overflow`, which the workflow answers by compacting. Heartbeats while the model thinks,
 * so a dead worker is noticed quickly. In a structured run the model is asked natively (adapters
 * with `structuredOutput: 'native'`) or through a `final_answer` tool, and an answer without tool
 * calls is checked against the schema here (`ModelStep.output`), never in workflow code.
 */
export async function callModel(
  agent: RegisteredAgent,
  input: CallModelInput,
  context: Context,
): Promise<ModelStep> {
  const mcp = await mcpSchemas(agent, input.tools, input.tenant);
  const tools = input.tools
    .map((name) => agent.schemas.get(name) ?? mcp.get(name))
    .filter((s): s is ToolSchema => s !== undefined);
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
  // Frequent local heartbeats (the worker throttles what it sends) also carry cancellation here quickly.
  const every = Math.min(1000, Math.max(100, agent.timeouts.modelHeartbeatMs / 3));
  const interval = setInterval(() => context.heartbeat(), every);
  const deltas = input.textDeltaBatchMs
    ? TextDeltaBatcher.forActivity(context, input.seq, input.textDeltaBatchMs, {
        structured: output !== undefined,
      })
    : undefined;
  try {
    const generated = await model
      .generate({
        messages: view.messages,
        tools,
        signal: context.cancellationSignal,
        ...(deltas ? { onTextDelta: (text: string) => deltas.push(text) } : {}),
        ...(native ? { output: { schema: output.schema } } : {}),
      })
      .catch(async (error: unknown) => {
        const overflow = await view.overflowFrom(error);
        if (!overflow) throw error;
        return overflow;
      });
    if ('reason' in generated)
      return { text: '', toolCalls: [], overflow: generated, context: view.report() };
    const response = output && !native ? takeFinalAnswer(generated, output.schema) : generated;
    // The live text reaches the workflow before the step's result does.
    await deltas?.close();
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
    if (agent.usage) await recordStep(agent.usage, input, response.usage, context);
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
    return {
      text: response.text,
      toolCalls: response.toolCalls,
      ...(checked ? { output: checked } : {}),
      ...(response.reasoning ? { reasoning: response.reasoning } : {}),
      ...(response.usage ? { usage: response.usage } : {}),
      ...(runRecorded ? { runRecorded } : {}),
      context: view.report(),
    };
  } finally {
    clearInterval(interval);
    void deltas?.close();
  }
}
