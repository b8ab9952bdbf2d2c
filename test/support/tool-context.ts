import type { CredentialStore } from '../../src/credentials/types.ts';
import { SecretSet } from '../../src/redaction.ts';
import type { ToolContext } from '../../src/tools/connector-base.ts';

/** The context the invokeTool activity would build, for calling a tool directly in a unit test. */
export function toolContext(
  credentialStore?: CredentialStore,
  overrides: Partial<ToolContext> = {},
): ToolContext {
  return {
    agent: 'test',
    workflowId: 'wf-1',
    runId: 'run-1',
    callId: 'call-1',
    credentialStore,
    secrets: new SecretSet(),
    signal: new AbortController().signal,
    heartbeat: () => undefined,
    ...overrides,
  };
}
