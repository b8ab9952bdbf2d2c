import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { CredentialError } from '../../src/errors.ts';
import {
  assertValidTool,
  BaseConnectorTool,
  type ToolContext,
  type ToolOutput,
} from '../../src/tools/connector-base.ts';
import { MailTool } from '../../src/tools/google/mail.ts';
import { toolContext } from '../support/tool-context.ts';

class TicketTool extends BaseConnectorTool {
  readonly name: string = 'tickets';
  readonly description: string = 'Search tickets';
  readonly parameters = z.object({
    query: z.string().describe('free text'),
    limit: z.number().int().min(1).max(50).optional(),
  });
  protected override readonly defaultCredentialKey = 'ticket_system';

  async run(context: ToolContext): Promise<ToolOutput> {
    const record = await this.getCredential(context);
    return { text: `using ${record.token}`, metadata: {} };
  }
}

function context(store?: InMemoryCredentialStore, tenant?: string): ToolContext {
  return toolContext(store, { tenant });
}

describe('BaseConnectorTool', () => {
  it('derives a function schema from the zod parameters', () => {
    expect(new TicketTool().schema()).toEqual({
      type: 'function',
      function: {
        name: 'tickets',
        description: 'Search tickets',
        parameters: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'free text' },
            limit: { type: 'integer', minimum: 1, maximum: 50 },
          },
          required: ['query'],
        },
      },
    });
  });

  it('reads its credential under the default key, or the key given to the constructor', async () => {
    const store = new InMemoryCredentialStore();
    await store.put({ name: 'ticket_system', type: 'bearer', token: 'default-key-token' });
    await store.put({ name: 'tickets_eu', type: 'bearer', token: 'eu-token' });
    expect((await new TicketTool().run(context(store))).text).toBe('using default-key-token');
    expect((await new TicketTool({ credentialKey: 'tickets_eu' }).run(context(store))).text).toBe(
      'using eu-token',
    );
  });

  it('prefers its own store over the agent store, and reads the tenant records', async () => {
    const own = new InMemoryCredentialStore();
    await own.put({ name: 'ticket_system', type: 'bearer', token: 'own-token' });
    const shared = new InMemoryCredentialStore();
    await shared.put({ name: 'ticket_system', type: 'bearer', token: 'ada-token' }, { tenant: 'ada' });
    expect((await new TicketTool({ credentialStore: own }).run(context(shared))).text).toBe(
      'using own-token',
    );
    expect((await new TicketTool().run(context(shared, 'ada'))).text).toBe('using ada-token');
  });

  it('registers every secret it read for redaction', async () => {
    const store = new InMemoryCredentialStore();
    await store.put({
      name: 'ticket_system',
      type: 'oauth2',
      token: 'access-123',
      refresh_token: 'refresh-456',
    });
    const ctx = context(store);
    await new TicketTool().run(ctx);
    expect(ctx.secrets.redact('access-123 refresh-456')).toBe('[REDACTED] [REDACTED]');
  });

  it('fails with a CredentialError that says what to store when the record is missing', async () => {
    const error = await new TicketTool()
      .run(context(new InMemoryCredentialStore(), 'bob'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as CredentialError).code).toBe('CREDENTIAL');
    expect((error as Error).message).toMatch(
      /No credential "ticket_system" for tenant "bob".*store\.put\(\{ name: 'ticket_system'/,
    );
  });

  it('names the login command of an OAuth connector whose default credential is missing', async () => {
    const missing = (tool: MailTool) =>
      tool
        .run(context(new InMemoryCredentialStore(), 'bob'), { action: 'search', query: 'x' })
        .catch((e: unknown) => (e as Error).message);
    expect(await missing(new MailTool())).toContain(
      'log in with `toolkit-agent auth google --services mail --tenant bob` (or store a token with `toolkit-agent creds set mail --tenant bob`)',
    );
    // A key of the user's own: logging in would not store it, so the message says to store a token.
    expect(await missing(new MailTool({ credentialKey: 'work_mail' }))).toMatch(
      /No credential "work_mail" for tenant "bob" in the credential store: store it with `toolkit-agent creds set work_mail --tenant bob`/,
    );
  });

  it('fails when no store was configured, and when the token expired', async () => {
    await expect(new TicketTool().run(context())).rejects.toThrow(/no credential store was configured/);
    const store = new InMemoryCredentialStore();
    await store.put({
      name: 'ticket_system',
      type: 'oauth2',
      token: 't',
      metadata: { expires_at: '2020-01-01T00:00:00Z' },
    });
    await expect(new TicketTool().run(context(store))).rejects.toThrow(/expired at 2020-01-01/);
  });
});

describe('assertValidTool', () => {
  it('accepts a proper tool and refuses names, descriptions and parameters a model cannot use', () => {
    expect(() => assertValidTool(new TicketTool())).not.toThrow();
    class BadName extends TicketTool {
      override readonly name = 'has spaces';
    }
    class NoDescription extends TicketTool {
      override readonly description = ' ';
    }
    class NotAnObject extends BaseConnectorTool<z.ZodString> {
      readonly name = 'x';
      readonly description = 'x';
      readonly parameters = z.string();
      async run(): Promise<ToolOutput> {
        return { text: '', metadata: {} };
      }
    }
    expect(() => assertValidTool(new BadName())).toThrow(/letters, digits/);
    expect(() => assertValidTool(new NoDescription())).toThrow(/needs a description/);
    expect(() => assertValidTool(new NotAnObject() as never)).toThrow(/zod object/);
    expect(() => assertValidTool({ name: 'fake' } as never)).toThrow(/extend BaseConnectorTool/);
  });
});
