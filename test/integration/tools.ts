import { z } from 'zod';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';

/** Adds two numbers; records every call it really ran. */
export class AddTool extends BaseConnectorTool {
  readonly name = 'add';
  readonly description = 'Adds two numbers';
  readonly parameters = z.object({ a: z.number(), b: z.number() });
  readonly ran: Array<{ a: number; b: number }> = [];

  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const { a, b } = args as { a: number; b: number };
    this.ran.push({ a, b });
    return { text: String(a + b), metadata: { sum: a + b } };
  }
}

/** The `add` tool under another name, as after a rename. */
export class SumTool extends BaseConnectorTool {
  readonly name = 'sum';
  readonly description = 'Adds two numbers';
  readonly parameters = z.object({ a: z.number(), b: z.number() });
  async run(_context: ToolContext, args: { a: number; b: number }): Promise<ToolOutput> {
    return { text: String(args.a + args.b), metadata: {} };
  }
}

/** Reads `mail`, of which there is never a record: a run asks the user to authorize it and waits. */
export class LockedInboxTool extends BaseConnectorTool {
  readonly name = 'inbox';
  readonly description = 'Reads mail';
  readonly parameters = z.object({});
  protected override readonly defaultCredentialKey = 'mail';
  async run(context: ToolContext): Promise<ToolOutput> {
    await this.getCredential(context);
    return { text: 'no new mail', metadata: {} };
  }
}

/** Always fails, the way a broken upstream does. */
export class BrokenTool extends BaseConnectorTool {
  readonly name = 'broken';
  readonly description = 'A tool whose upstream is down';
  readonly parameters = z.object({});
  calls = 0;

  async run(): Promise<ToolOutput> {
    this.calls += 1;
    throw new Error('upstream said no');
  }
}

/** Reads the stored token `upstream` and says it (a run's redaction must keep it out of everything). */
export class TokenTool extends BaseConnectorTool {
  readonly name = 'token';
  readonly description = 'Reads the API token';
  readonly parameters = z.object({});
  protected override readonly defaultCredentialKey = 'upstream';
  async run(context: ToolContext): Promise<ToolOutput> {
    const { token } = await this.getCredential(context);
    return { text: `the token is ${String(token)}`, metadata: {} };
  }
}
