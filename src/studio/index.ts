/**
 * The `toolkit-agent/studio` entry point: a local web page to look at agents, runs, approvals, cost
 * and evals (see docs/studio.md).
 *
 * @module toolkit-agent/studio
 */
import '../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
export { createStudio, type StudioOptions } from './studio.ts';
export type { StudioUsage, CostReport, QuotaStanding } from './usage-api.ts';
export type { AgentDescription } from './describe-agents.ts';
export type { RunTimeline, WaitingCall } from './runs-api.ts';
export type { EvalReportListing } from './evals-api.ts';
export type { ResourceMemory } from './memory-api.ts';
export { toNodeListener } from './node-listener.ts';
