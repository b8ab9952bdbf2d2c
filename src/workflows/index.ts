/** The workflows the agent worker registers. Deterministic code only: lint forbids I/O here. */
export { agentRun } from './agent-run.ts';
export { chatSession } from './chat-session.ts';
export { deepAgentRun } from './deep-agent-run.ts';
export { sessionMessage } from './session-message.ts';
export { agentPoller } from './poller.ts';
export { a2aPushNotifications } from './a2a-push.ts';
