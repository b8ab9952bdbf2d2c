import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { ToolContext, ToolOutput } from '../connector-base.ts';
import { BuiltinTool } from './builtin-tool.ts';

const DEFAULT_TIMEOUT_S = 60;

const bashParameters = z.object({
  command: z.string().min(1),
  timeout: z.number().int().min(1).max(600).optional().describe(`Seconds (default ${DEFAULT_TIMEOUT_S})`),
});

/** `bash`: a shell command in the project root, with a timeout and without the worker's secrets. */
export class BashTool extends BuiltinTool<typeof bashParameters> {
  readonly name = 'bash';
  readonly description = 'Run a bash command in the project root. Returns exit code, stdout and stderr.';
  readonly parameters = bashParameters;

  async run(context: ToolContext, args: z.infer<typeof bashParameters>): Promise<ToolOutput> {
    const { command, timeout = DEFAULT_TIMEOUT_S } = args;
    return this.processOutput(await this.execute(context, 'bash', ['-c', command], timeout), timeout);
  }
}

const RUNNERS = {
  javascript: { extension: 'mjs', command: process.execPath, args: [] as string[] },
  typescript: { extension: 'ts', command: process.execPath, args: [] as string[] },
  python: { extension: 'py', command: 'python3', args: [] as string[] },
};

const runCodeParameters = z.object({
  language: z.enum(['javascript', 'typescript', 'python']),
  code: z.string().min(1),
  timeout: z.number().int().min(1).max(600).optional().describe(`Seconds (default ${DEFAULT_TIMEOUT_S})`),
});

/** `run_code`: a JavaScript, TypeScript or Python snippet, from a temporary file under the project root. */
export class RunCodeTool extends BuiltinTool<typeof runCodeParameters> {
  readonly name = 'run_code';
  readonly description =
    'Run a JavaScript, TypeScript or Python program in the project root. Returns exit code, stdout and stderr.';
  readonly parameters = runCodeParameters;

  async run(context: ToolContext, args: z.infer<typeof runCodeParameters>): Promise<ToolOutput> {
    const { language, code, timeout = DEFAULT_TIMEOUT_S } = args;
    const runner = RUNNERS[language];
    const root = await this.root();
    const folder = join(root, '.toolkit-run');
    await mkdir(folder, { recursive: true });
    const file = join(folder, `${randomUUID()}.${runner.extension}`);
    await writeFile(file, code);
    try {
      return this.processOutput(
        await this.execute(context, runner.command, [...runner.args, file], timeout),
        timeout,
      );
    } finally {
      await rm(file, { force: true });
    }
  }
}
