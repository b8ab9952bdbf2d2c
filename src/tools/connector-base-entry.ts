/**
 * The `toolkit-agent/tools/connector_base` entry point: what a connector author needs, the base
 * class, {@link defineTool} for a tool without a class, and the HTTP helpers the built-in connectors
 * use.
 *
 * @module toolkit-agent/tools/connector_base
 */
import '../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
export {
  BaseConnectorTool,
  assertValidTool,
  type ApprovalContext,
  type LoadedSkill,
  type NeedsApproval,
  type ToolContext,
  type ToolOutput,
} from './connector-base.ts';
export { defineTool, type DefinedToolContext, type ToolDefinition } from './define-tool.ts';
