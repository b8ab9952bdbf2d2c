/**
 * `toolkit-agent/ag-ui`: the AG-UI protocol (CopilotKit and every `@ag-ui/client` frontend) served
 * on durable chat sessions. Needs the optional peer dependencies `@ag-ui/core` and `@ag-ui/encoder`.
 * See docs/ag-ui.md.
 */
export { createAgUiHandler, type AgUiHandlerOptions } from './handler.ts';
