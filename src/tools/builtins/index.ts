import type { BaseConnectorTool } from '../connector-base.ts';
import { PlaywrightBrowseTool } from './browse.ts';
import type { BuiltinToolOptions } from './builtin-tool.ts';
import { EditFileTool, ReadFileTool, WriteFileTool } from './file-edit.ts';
import { GlobFilesTool, GrepFilesTool, WorkspaceFilesTool } from './file-search.ts';
import { OpenUrlTool } from './open-url.ts';
import { PlanTaskTool, VerifyOutputTool } from './plan-verify.ts';
import { BashTool, RunCodeTool } from './shell.ts';
import { WebSearchTool } from './web-search.ts';

export type { BuiltinToolOptions } from './builtin-tool.ts';
export type { BrowseOptions } from './browse.ts';
export type { OpenUrlOptions } from './open-url.ts';
export { EditFileTool, ReadFileTool, WriteFileTool, GlobFilesTool, GrepFilesTool, WorkspaceFilesTool };
export {
  PlanTaskTool,
  VerifyOutputTool,
  BashTool,
  RunCodeTool,
  OpenUrlTool,
  WebSearchTool,
  PlaywrightBrowseTool,
};

/** The 13 built-in tools that skills may attach, confined to `projectRoot` (default `/tmp`). */
export function builtinTools(options: BuiltinToolOptions = {}): BaseConnectorTool[] {
  return [
    new ReadFileTool(options),
    new WriteFileTool(options),
    new EditFileTool(options),
    new GlobFilesTool(options),
    new GrepFilesTool(options),
    new WorkspaceFilesTool(options),
    new BashTool(options),
    new RunCodeTool(options),
    new PlanTaskTool(options),
    new VerifyOutputTool(options),
    new WebSearchTool(),
    new OpenUrlTool(options),
    new PlaywrightBrowseTool(options),
  ];
}
