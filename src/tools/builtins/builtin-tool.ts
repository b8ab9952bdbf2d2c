import { realpath } from 'node:fs/promises';
import type { z } from 'zod';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';
import { describeProcess, runProcess, type ProcessResult } from './run-process.ts';
import { DEFAULT_PROJECT_ROOT, resolveInRoot } from './jail.ts';

export interface BuiltinToolOptions {
  /** The folder the tool works in and may not leave. Default `/tmp` (docs/connectors.md). */
  projectRoot?: string;
}

/** A built-in tool: no credential, confined to `projectRoot`. */
export abstract class BuiltinTool<
  P extends z.ZodType = z.ZodType<Record<string, unknown>>,
> extends BaseConnectorTool<P> {
  readonly projectRoot: string;

  constructor(options: BuiltinToolOptions = {}) {
    super();
    this.projectRoot = options.projectRoot ?? DEFAULT_PROJECT_ROOT;
  }

  /** The root with symlinks resolved, as paths inside it are shown. */
  protected root(): Promise<string> {
    return realpath(this.projectRoot);
  }

  protected inside(path: string): Promise<string> {
    return resolveInRoot(this.projectRoot, path);
  }

  /** Runs a program in the project root for this tool call (timeout, heartbeats, cancellation). */
  protected async execute(
    context: ToolContext,
    command: string,
    args: string[],
    timeoutS: number,
  ): Promise<ProcessResult> {
    return runProcess(command, args, {
      cwd: await this.root(),
      timeoutMs: timeoutS * 1000,
      signal: context.signal,
      heartbeat: () => context.heartbeat(),
    });
  }

  /** A finished program as the model reads it. */
  protected processOutput(result: ProcessResult, timeoutS: number): ToolOutput {
    return {
      text: describeProcess(result, timeoutS * 1000),
      metadata: { exit_code: result.exitCode, timed_out: result.timedOut },
    };
  }
}
