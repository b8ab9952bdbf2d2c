/**
 * A2A (the Agent2Agent protocol, `toolkit-agent/a2a`): `serveA2a` offers agents to A2A clients of
 * any vendor, each task a durable run. Needs the optional peer dependency `@a2a-js/sdk`.
 *
 * @module toolkit-agent/a2a
 */
import '../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
export {
  serveA2a,
  type ServeA2aOptions,
  type A2aServing,
  type A2aHttpTransport,
  type A2aCaller,
} from './serve.ts';
