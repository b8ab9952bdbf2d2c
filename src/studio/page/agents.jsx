// Agents: each agent's definition as the worker serves it, and a chat with it on a durable chat
// session (the AI SDK's useChat over createChatHandler), its approvals as buttons.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useMemo, useState } from 'react';
import { authHeaders, base, Problem, useApi } from './api.jsx';

export function AgentsView({ args: [selected] }) {
  const { data: agents, error } = useApi('agents');
  if (!agents) return <Problem error={error} />;
  if (agents.length === 0) return <p>This studio was given no agents.</p>;
  const agent = agents.find((a) => a.name === selected) ?? agents[0];
  return (
    <div className="columns">
      <aside>
        <h2>Agents</h2>
        <ul>
          {agents.map((a) => (
            <li key={a.name}>
              <a
                href={`#/agents/${encodeURIComponent(a.name)}`}
                aria-current={a === agent ? 'true' : undefined}
              >
                {a.name}
              </a>
            </li>
          ))}
        </ul>
      </aside>
      <section>
        <Definition agent={agent} />
        <Chat key={agent.name} agent={agent.name} />
      </section>
    </div>
  );
}

function List({ items }) {
  return items.length ? items.join(', ') : <em>none</em>;
}

function Definition({ agent }) {
  return (
    <article className="definition" data-agent={agent.name}>
      <h2>{agent.name}</h2>
      <dl>
        <dt>Model</dt>
        <dd className="model">{agent.model}</dd>
        {agent.systemPrompt && (
          <>
            <dt>System prompt</dt>
            <dd>{agent.systemPrompt}</dd>
          </>
        )}
        <dt>Skills</dt>
        <dd>
          <List items={agent.skills} />
        </dd>
        <dt>Sub-agents</dt>
        <dd>
          <List
            items={agent.subAgents.map((s) => (s.name === s.agent ? s.name : `${s.name} (${s.agent})`))}
          />
        </dd>
        <dt>Guardrails</dt>
        <dd>
          input: <List items={agent.guardrails.input} />; output: <List items={agent.guardrails.output} />;
          tools: <List items={agent.guardrails.tool} />
        </dd>
        <dt>Memory</dt>
        <dd>
          {agent.memory
            ? `long-term${agent.memory.workingMemory ? ', working memory' : ''}${agent.memory.observe ? ', observations' : ''}`
            : 'none'}
        </dd>
        <dt>Caching</dt>
        <dd>{agent.caching === undefined ? 'default' : JSON.stringify(agent.caching)}</dd>
        {agent.mcpServers.length > 0 && (
          <>
            <dt>MCP servers</dt>
            <dd>
              <List items={agent.mcpServers} />
            </dd>
          </>
        )}
      </dl>
      <h3>Tools</h3>
      {agent.tools.length === 0 ? (
        <p>
          <em>none</em>
        </p>
      ) : (
        agent.tools.map((tool) => (
          <details key={tool.name} className="tool-definition">
            <summary>
              <code>{tool.name}</code> {tool.approval && <mark>needs approval</mark>} {tool.description}
            </summary>
            <pre>{JSON.stringify(tool.parameters, null, 2)}</pre>
          </details>
        ))
      )}
    </article>
  );
}

function Part({ part, onApproval }) {
  if (part.type === 'text') return <p className="text">{part.text}</p>;
  if (part.type !== 'dynamic-tool' && !part.type.startsWith('tool-')) return null;
  const name = part.toolName ?? part.type.slice('tool-'.length);
  return (
    <div className="tool" data-state={part.state}>
      {name}: {part.state}
      {part.state === 'approval-requested' && (
        <div role="group">
          <button onClick={() => onApproval({ id: part.approval.id, approved: true })}>Approve</button>
          <button
            className="secondary"
            onClick={() =>
              onApproval({ id: part.approval.id, approved: false, reason: 'Rejected in the studio.' })
            }
          >
            Reject
          </button>
        </div>
      )}
    </div>
  );
}

function Chat({ agent }) {
  const chatId = useMemo(() => {
    const key = `studioChat:${agent}`;
    return (
      sessionStorage.getItem(key) ??
      (sessionStorage.setItem(key, crypto.randomUUID()), sessionStorage.getItem(key))
    );
  }, [agent]);
  const [input, setInput] = useState('');
  const { messages, sendMessage, status, error, addToolApprovalResponse } = useChat({
    id: `${agent}:${chatId}`,
    transport: new DefaultChatTransport({
      api: `${base}api/chat/${encodeURIComponent(agent)}`,
      headers: authHeaders,
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  return (
    <article className="chat" data-status={status}>
      <h3>Chat with {agent}</h3>
      {messages.map((message) => (
        <div key={message.id} className={message.role}>
          {message.parts.map((part, i) => (
            <Part key={i} part={part} onApproval={addToolApprovalResponse} />
          ))}
        </div>
      ))}
      <Problem error={error?.message} />
      <form
        role="group"
        onSubmit={(e) => {
          e.preventDefault();
          if (!input.trim()) return;
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input
          id="message"
          aria-label="Message"
          placeholder={`Message ${agent}`}
          value={input}
          onChange={(e) => setInput(e.target.value)}
          autoComplete="off"
        />
        <button type="submit" disabled={status === 'submitted' || status === 'streaming'}>
          Send
        </button>
      </form>
    </article>
  );
}
