import type { InvokeToolInput, ResolvedRun, ToolOutcome } from '../common/run.ts';
import { FastToolCalls } from '../fast-tools/workflow-fast-call.ts';
import { toolActivities } from './quick-activities.ts';

type ToolActivities = ReturnType<typeof toolActivities>;

/**
 * Where a tool call runs: on its rate-limited task queue when its credential key (or its MCP
 * server's) is limited (`rateLimits`), locally when the plan names the tool fast (`fastTools`) and the call has not had
 * its fast attempt yet, else as a normal activity.
 */
export class ToolCallRoutes {
  readonly #normal: ToolActivities;
  /** Activities on the rate-limited task queues, by queue (made at the first call of each). */
  readonly #queued = new Map<string, ToolActivities>();
  #plan: ResolvedRun;
  #fast: FastToolCalls;
  /** The run's tenant: its account at a rate-limited provider. */
  readonly #tenant: string | undefined;

  /** `normal`: the proxies of the run's tool activities, with the timeouts of its first plan. */
  constructor(plan: ResolvedRun, normal: ToolActivities, tenant: string | undefined) {
    this.#normal = normal;
    this.#plan = plan;
    this.#tenant = tenant;
    this.#fast = new FastToolCalls(plan.timeouts, normal);
  }

  /** The plan whose fast tools and queues route the next calls (a handoff brings another agent's). */
  use(plan: ResolvedRun): void {
    this.#plan = plan;
    this.#fast = new FastToolCalls(plan.timeouts, this.#normal);
  }

  invoke(input: InvokeToolInput): Promise<ToolOutcome> {
    const tool = input.call.name;
    const queue = this.#plan.toolQueues?.[tool] ?? this.#mcpQueue(tool);
    // A rate-limited tool always runs on its own queue, where Temporal paces it: never locally.
    if (queue) return this.#onQueue(queue).invokeTool(input);
    // A call that had its fast attempt (inside the model step that carried it) is never run locally again.
    if (this.#plan.fastTools?.includes(tool) && !input.attemptBase) return this.#fast.invoke(input);
    return this.#normal.invokeTool(input);
  }

  /** The queue of an MCP tool (`<server>_<tool>`; server names have no `_`) whose server's key is limited. */
  #mcpQueue(tool: string): string | undefined {
    const cut = tool.indexOf('_');
    return cut > 0 ? this.#plan.mcpQueues?.[tool.slice(0, cut)] : undefined;
  }

  #onQueue(queue: string): ToolActivities {
    let activities = this.#queued.get(queue);
    if (!activities) {
      activities = toolActivities(this.#plan.timeouts, { taskQueue: queue, tenant: this.#tenant });
      this.#queued.set(queue, activities);
    }
    return activities;
  }
}
