/**
 * Test helpers published at `toolkit-agent/testing`: test agents the way we test ours.
 *
 * @module toolkit-agent/testing
 */
import './node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
export { ScriptedModel, type ScriptedStep } from './models/scripted.ts';
export { InMemoryCredentialStore } from './credentials/in-memory.ts';
export { InMemoryMemoryStore } from './memory/in-memory.ts';
export { InMemoryUsageStore } from './usage/in-memory.ts';
