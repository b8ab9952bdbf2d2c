// The chat page: the AI SDK's own useChat, unmodified, over a durable chat session
// (examples/chat-in-browser.ts serves it, bundled with esbuild, and the /api/chat routes).
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

// One chat per tab, kept across reloads: a reload resumes the answer in progress.
const chatId = sessionStorage.chatId ?? (sessionStorage.chatId = crypto.randomUUID());

function Part({ part, onApproval }) {
  if (part.type === 'text') return <p className="text">{part.text}</p>;
  if (part.type !== 'dynamic-tool' && !part.type.startsWith('tool-')) return null;
  return (
    <div className="tool" data-state={part.state}>
      {part.toolName}: {part.state}
      {part.state === 'approval-requested' && (
        <>
          {' '}
          <button onClick={() => onApproval({ id: part.approval.id, approved: true })}>Approve</button>{' '}
          <button onClick={() => onApproval({ id: part.approval.id, approved: false, reason: 'Declined' })}>
            Reject
          </button>
        </>
      )}
    </div>
  );
}

function Chat() {
  const [input, setInput] = useState('');
  const { messages, sendMessage, status, stop, addToolApprovalResponse } = useChat({
    id: chatId,
    transport: new DefaultChatTransport({ api: '/api/chat' }),
    resume: true, // GET /api/chat/<id>/stream: the turn in progress, if any
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const busy = status === 'submitted' || status === 'streaming';
  return (
    <main data-status={status}>
      {messages.map((message) => (
        <div key={message.id} className={message.role}>
          {message.parts.map((part, i) => (
            <Part key={i} part={part} onApproval={addToolApprovalResponse} />
          ))}
        </div>
      ))}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!input.trim()) return;
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input id="message" value={input} onChange={(e) => setInput(e.target.value)} autoComplete="off" />{' '}
        <button type="submit">Send</button>{' '}
        <button
          type="button"
          id="stop"
          disabled={!busy}
          onClick={() => {
            void stop(); // stops reading here...
            void fetch(`/api/chat/${chatId}/stop`, { method: 'POST' }); // ...and the turn on the server
          }}
        >
          Stop
        </button>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<Chat />);
