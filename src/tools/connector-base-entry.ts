/**
 * The `toolkit-agent/tools/connector_base` entry point: what a connector author needs. The base
 * class of every tool, {@link defineTool} for a tool without a class, the base of the built-in
 * tools, and the HTTP layer the built-in connectors call (`httpRequest` registers the secrets it
 * sends for redaction; `errorForResponse` turns a failed response into the error kinds the activity
 * retries or gives back to the model).
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
export { BuiltinTool, type BuiltinToolOptions } from './builtins/builtin-tool.ts';
export { httpRequest, type HttpRequest, type HttpResponse, type HttpTimeouts } from '../http/request.ts';
export { errorForResponse } from '../http/classify.ts';
export { parseRetryAfter } from '../http/retry-after.ts';
export { SecretSet, REDACTED } from '../redaction.ts';
