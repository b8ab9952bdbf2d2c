import type { ModelAdapter, ModelRequest, ModelResponse } from '../../src/models/model-adapter.ts';

const USAGE = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };

/**
 * A model for trigger tests that needs no script: a prompt naming `channel C… thread 123.456` is
 * answered by posting a reply in that Slack thread with the `chat` tool, then "Replied."; any other
 * prompt is answered "Seen: <prompt>".
 */
export class SlackThreadModel implements ModelAdapter {
  readonly specificationVersion = 'toolkit-agent.model.v1';
  readonly modelId = 'slack-thread';

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const last = request.messages.at(-1)!;
    if (last.role === 'tool') return { text: 'Replied.', toolCalls: [], usage: USAGE };
    const prompt = String(last.content);
    const thread = /channel (\w+) thread ([\d.]+): (.*)/s.exec(prompt);
    if (thread && request.tools.some((tool) => tool.function.name === 'chat')) {
      return {
        text: '',
        toolCalls: [
          {
            id: `reply_${request.messages.length}`,
            name: 'chat',
            args: {
              action: 'post',
              channel: thread[1]!,
              thread_ts: thread[2]!,
              text: `You said: ${thread[3]}`,
            },
          },
        ],
        usage: USAGE,
      };
    }
    return { text: `Seen: ${prompt}`, toolCalls: [], usage: USAGE };
  }
}
