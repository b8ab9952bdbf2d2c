import { realpath } from 'node:fs/promises';
import { BaseConnectorTool } from '../connector-base.ts';
import { DEFAULT_PROJECT_ROOT, resolveInRoot } from './jail.ts';

export interface BuiltinToolOptions {
  /** The folder the tool works in and may not leave. Default `/tmp` (spec 4.8). */
  projectRoot?: string;
}

/** A built-in tool: no credential, confined to `projectRoot`. */
export abstract class BuiltinTool extends BaseConnectorTool {
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
}
