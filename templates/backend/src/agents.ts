/** The agents the worker serves, by the name the service starts runs with. */
import { z } from 'zod';
import { BaseConnectorTool, type AgentDefinition, type ToolContext, type ToolOutput } from 'toolkit-agent';
import { chooseModel } from './model.ts';

/** The task queue the worker serves and the service starts runs on. */
export const TASK_QUEUE = 'backend';

/** What a triage run answers: `result.output` is typed from this schema. */
export const Triage = z.object({
  priority: z.enum(['low', 'medium', 'high']).describe('How urgent the ticket is'),
  team: z.enum(['billing', 'search', 'accounts']).describe('The team that should handle it'),
  summary: z.string().describe('One sentence for the team'),
});
export type Triage = z.infer<typeof Triage>;

/** Replace with your ticket system's API (read its token with `this.getCredential(context)`). */
class TicketTool extends BaseConnectorTool {
  readonly name = 'read_ticket';
  readonly description = 'Reads a support ticket by id';
  readonly parameters = z.object({ id: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const tickets: Record<string, string> = { '7': 'Every invoice export fails with a 500 since 09:00.' };
    return { text: tickets[String(args.id)] ?? 'No such ticket.', metadata: {} };
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
