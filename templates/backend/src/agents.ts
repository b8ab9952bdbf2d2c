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
  // A number, not a string: a small model then writes the ticket's number, not stray text.
  readonly parameters = z.object({ id: z.number().int().describe('the ticket number') });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const tickets: Record<string, string> = { '7': 'Every invoice export fails with a 500 since 09:00.' };
    return { text: tickets[String(args.id)] ?? `There is no ticket ${String(args.id)}.`, metadata: {} };
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
