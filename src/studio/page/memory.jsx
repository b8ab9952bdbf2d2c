// Memory: what an agent's long-term memory recalls of a resource (a user, a customer) for what you
// search, its working memory, and forgetting it (one session, or all of it).
import { useState } from 'react';
import { api, formatTime, Problem, useApi } from './api.jsx';

export function MemoryView() {
  const { data: agents, error } = useApi('memory');
  const [form, setForm] = useState({ agent: '', resource: '', tenant: '', q: '' });
  const [asked, setAsked] = useState(null);
  const [note, setNote] = useState();
  const agent = form.agent || agents?.[0] || '';
  const query = asked && new URLSearchParams(Object.entries(asked.params).filter(([, v]) => v)).toString();
  const found = useApi(asked ? `memory/${encodeURIComponent(asked.agent)}?${query}` : null);
  const set = (key) => (e) => setForm({ ...form, [key]: e.target.value });
  const search = (e) => {
    e.preventDefault();
    setNote(undefined);
    setAsked({ agent, params: { resource: form.resource, tenant: form.tenant, q: form.q }, at: Date.now() });
  };
  const forget = async (session) => {
    const params = new URLSearchParams({
      resource: asked.params.resource,
      ...(asked.params.tenant ? { tenant: asked.params.tenant } : {}),
      ...(session ? { session } : {}),
    });
    const done = await api(`memory/${encodeURIComponent(asked.agent)}/forget?${params}`, {
      method: 'POST',
    }).catch((e) => setNote(e.message));
    if (done)
      setNote(`Forgot ${done.forgotten} message(s)${done.workingMemory ? ' and the working memory' : ''}.`);
    await found.reload();
  };
  if (!agents) return <Problem error={error} />;
  if (agents.length === 0)
    return <p>No agent of this studio keeps a long-term memory (the memory option).</p>;
  return (
    <section>
      <h2>Memory</h2>
      <form onSubmit={search} role="search">
        <select name="agent" aria-label="agent" value={agent} onChange={set('agent')}>
          {agents.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
        <input
          name="resource"
          placeholder="resource (a user, a customer)"
          aria-label="resource"
          value={form.resource}
          onChange={set('resource')}
          required
        />
        <input
          name="tenant"
          placeholder="tenant"
          aria-label="tenant"
          value={form.tenant}
          onChange={set('tenant')}
        />
        <input
          name="q"
          type="search"
          placeholder="what to look for"
          aria-label="search"
          value={form.q}
          onChange={set('q')}
        />
        <button type="submit">Search</button>
      </form>
      <Problem error={found.error} />
      {note && <p className="note">{note}</p>}
      {asked && found.data && (
        <>
          <h3>Working memory</h3>
          {Object.keys(found.data.workingMemory).length === 0 ? (
            <p className="working">none</p>
          ) : (
            <pre className="working">{JSON.stringify(found.data.workingMemory, null, 2)}</pre>
          )}
          <h3>Recalled for “{asked.params.q}”</h3>
          {found.data.hits.length === 0 ? (
            <p className="hits-empty">Nothing remembered matches.</p>
          ) : (
            <table className="hits striped">
              <thead>
                <tr>
                  <th>score</th>
                  <th>when</th>
                  <th>session</th>
                  <th>text</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {found.data.hits.map((hit) => (
                  <tr key={hit.messageId} data-message-id={hit.messageId}>
                    <td>{hit.score.toFixed(3)}</td>
                    <td>{formatTime(hit.at)}</td>
                    <td>{hit.sessionId}</td>
                    <td>{hit.text}</td>
                    <td>
                      <button className="secondary outline" onClick={() => void forget(hit.sessionId)}>
                        Forget session
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <button className="contrast" id="forget-all" onClick={() => void forget()}>
            Forget everything of {asked.params.resource}
          </button>
        </>
      )}
    </section>
  );
}
