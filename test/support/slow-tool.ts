import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';

/** A tool that takes 3 s, as a slow upstream does: a reader that polls asks the run meanwhile. */
export class SlowTool extends BaseConnectorTool {
  readonly name = 'slow';
  readonly description = 'Looks something up, slowly';
  readonly parameters = z.object({});
  async run(): Promise<ToolOutput> {
    await sleep(3_000);
    return { text: 'found', metadata: {} };
  }
}
