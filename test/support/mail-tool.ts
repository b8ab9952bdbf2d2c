import { z } from 'zod';
import { errorForResponse } from '../../src/http/classify.ts';
import { httpRequest } from '../../src/http/request.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';

/**
 * A Gmail-like connector on a stand-in API (`apiUrl`): `unread` needs any valid token of the run's
 * tenant, `send` needs gmail.send (403 with `WWW-Authenticate: ... insufficient_scope` otherwise).
 */
export class InboxTool extends BaseConnectorTool {
  readonly name = 'inbox';
  readonly description = 'Reads or sends mail';
  readonly parameters = z.object({ path: z.enum(['unread', 'send']) });
  protected override readonly defaultCredentialKey = 'mail';
  protected override readonly credentialTypes = ['oauth2'] as const;

  apiUrl: string;

  constructor(apiUrl = '') {
    super();
    this.apiUrl = apiUrl;
  }

  async run(context: ToolContext, args: { path: string }): Promise<ToolOutput> {
    const record = await this.getCredential(context);
    const response = await httpRequest({
      method: 'GET',
      url: `${this.apiUrl}/${args.path}?tenant=${context.tenant ?? ''}`,
      headers: { authorization: `Bearer ${record.token}` },
      secrets: context.secrets,
    });
    if (response.status !== 200)
      throw errorForResponse(response, {
        method: 'GET',
        service: 'Inbox',
        idempotent: true,
        credentialKey: 'mail',
      });
    return { text: response.text(), metadata: {} };
  }
}

/** Calls `inbox` (`send` when the prompt says so), then answers "answer: <the tool's result>". */
export function mailModel(): ScriptedModel {
  const step = (request: ModelRequest): ScriptedStep => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: `answer: ${String(last.content)}` };
    const prompt = String(request.messages.findLast((m) => m.role === 'user')?.content ?? '');
    return { toolCalls: [{ name: 'inbox', args: { path: prompt.includes('send') ? 'send' : 'unread' } }] };
  };
  return new ScriptedModel(Array.from({ length: 500 }, () => step));
}
