/**
 * Workflow interceptors (bundled into the agent workflows; deterministic code only) that name each
 * activity in the Temporal UI: `model <id>` for a model step, `tool <name>` for a tool call.
 */
import type {
  ActivityInput,
  LocalActivityInput,
  Next,
  WorkflowInterceptors,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/** The UI summary of one activity of the agent workflows, from its type and input. */
export function activitySummary(activityType: string, args: readonly unknown[]): string | undefined {
  const input = args[0] as { model?: unknown; call?: { name?: unknown } } | undefined;
  switch (activityType) {
    case 'callModel':
      return typeof input?.model === 'string' ? `model ${input.model}` : 'model';
    case 'invokeTool':
      return typeof input?.call?.name === 'string' ? `tool ${input.call.name}` : 'tool';
    case 'resolveRun':
      return 'resolve run';
    case 'openRun':
      return 'open run, first model step';
    case 'appendMessages':
      return 'store messages';
    case 'loadSession':
      return 'load session';
    case 'recordRun':
      return 'record usage';
    case 'releaseRun':
      return 'free run slot';
    default:
      return undefined;
  }
}

class ActivitySummaries implements WorkflowOutboundCallsInterceptor {
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    return next(withSummary(input));
  }

  scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ) {
    return next(withSummary(input));
  }
}

function withSummary<T extends ActivityInput | LocalActivityInput>(input: T): T {
  if (input.options.summary !== undefined) return input;
  const summary = activitySummary(input.activityType, input.args);
  return summary === undefined ? input : { ...input, options: { ...input.options, summary } };
}

export const interceptors = (): WorkflowInterceptors => ({ outbound: [new ActivitySummaries()] });
