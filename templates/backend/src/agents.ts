/** The agents the worker serves, by the name the service starts runs with. */
import { z } from 'zod';
import { BaseConnectorTool, type AgentDefinition, type ToolContext, type ToolOutput } from 'toolkit-agent';
import { chooseModel } from './model.ts';

/** The task queue the worker serves and the service starts runs on. */
export const TASK_QUEUE = 'backend';

/**
 * What a triage run answers: `result.output` is typed from this schema. Names and choices that say
 * what they mean need no description; a small model tends to copy a description into the answer.
 */
export const Triage = z.object({
  priority: z.enum(['low', 'medium', 'high']),
  team: z.enum(['billing', 'search', 'accounts']),
  summary: z.string().describe('what the ticket says'),
});
export type Triage = z.infer<typeof Triage>;

/** Replace with your ticket system's API (read its token with `this.getCredential(context)`). */
class TicketTool extends BaseConnectorTool {
  readonly name = 'read_ticket';
  readonly description = 'Reads a support ticket by id';
  readonly parameters = z.object({ id: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const tickets: Record<string, string> = { '7': 'Every invoice export fails with a 500 since 09:00.' };
    // Models write an id as "7", "#7" or "ticket 7": the number is the id.
    const id = /\d+/.exec(String(args.id))?.[0] ?? String(args.id);
    return { text: tickets[id] ?? `There is no ticket ${String(args.id)}.`, metadata: {} };
  }
}

export async function agents(): Promise<Record<string, AgentDefinition>> {
  return {
    triage: {
      llm: await chooseModel(),
      tools: [new TicketTool()],
      systemPrompt: 'You triage support tickets. Read the ticket first.',
      output: Triage,
    },
  };
}
