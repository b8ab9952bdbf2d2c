import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { CredentialError } from '../../src/errors.ts';
import { assertValidTool, BaseConnectorTool } from '../../src/tools/connector-base.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { toolContext } from '../support/tool-context.ts';

const parameters = z.object({ service: z.string().describe('the service'), verbose: z.boolean().optional() });

describe('defineTool', () => {
  it('makes a BaseConnectorTool whose schema is derived from the parameters', () => {
    const tool = defineTool({
      name: 'service_status',
      description: 'Current status of a service',
      parameters,
      run: (_context, { service }) => ({ text: service, metadata: {} }),
    });
    expect(tool).toBeInstanceOf(BaseConnectorTool);
    expect(() => assertValidTool(tool)).not.toThrow();
    expect(tool.schema()).toEqual({
      type: 'function',
      function: {
        name: 'service_status',
        description: 'Current status of a service',
        parameters: {
          type: 'object',
          properties: {
            service: { type: 'string', description: 'the service' },
            verbose: { type: 'boolean' },
          },
          required: ['service'],
        },
      },
    });
  });

  it("reads the credential under credentialKey for the run's tenant and registers its secret", async () => {
    const store = new InMemoryCredentialStore();
    await store.put({ name: 'status_api', type: 'bearer', token: 'tenant-token' }, { tenant: 'acme' });
    const tool = defineTool({
      name: 'service_status',
      description: 'Current status of a service',
      parameters,
      credentialKey: 'status_api',
      async run(context, args) {
        const { token } = await context.getCredential();
        return { text: `${args.service} with ${token}`, metadata: { verbose: args.verbose ?? false } };
      },
    });
    const context = toolContext(store, { tenant: 'acme' });
    const output = await tool.run(context, tool.parameters.parse({ service: 'billing' }));
    expect(output).toEqual({ text: 'billing with tenant-token', metadata: { verbose: false } });
    expect(context.secrets.redact('leaked tenant-token')).toBe('leaked [REDACTED]');
    expect(tool.credentialKey).toBe('status_api');
  });

  it('defaults the credential key to the name and reports a missing record as a CredentialError', async () => {
    const tool = defineTool({
      name: 'weather',
      description: 'Weather',
      parameters,
      run: async (context) => ({ text: (await context.getCredential()).token, metadata: {} }),
    });
    const failed = await tool
      .run(toolContext(new InMemoryCredentialStore()), { service: 'x' })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(CredentialError);
    expect((failed as Error).message).toMatch(/No credential "weather"/);
  });

  it('passes needsApproval and fast to the tool, as the constructor options of a class tool', () => {
    const decide = (args: Record<string, unknown>) => args.service === 'prod';
    const tool = defineTool({
      name: 'restart',
      description: 'Restarts a service',
      parameters,
      needsApproval: decide,
      fast: true,
      run: () => ({ text: 'ok', metadata: {} }),
    });
    expect(tool.needsApproval).toBe(decide);
    expect(tool.fast).toBe(true);
    const plain = defineTool({
      name: 'p',
      description: 'p',
      parameters,
      run: () => ({ text: '', metadata: {} }),
    });
    expect([plain.needsApproval, plain.fast]).toEqual([undefined, false]);
  });

  it('refuses a definition no model could call when it is made', () => {
    const run = () => ({ text: '', metadata: {} });
    expect(() => defineTool({ name: 'has spaces', description: 'x', parameters, run })).toThrow(
      /letters, digits/,
    );
    expect(() => defineTool({ name: 'x', description: ' ', parameters, run })).toThrow(/needs a description/);
  });
});
