// Runs: the runs and chat sessions of the task queue (Temporal visibility, filtered), and one run's
// timeline, read again every second while it runs, with its waiting calls decided here.
import { useState } from 'react';
import { decide, formatCost, formatMs, formatTime, Problem, useApi } from './api.jsx';
import { Timeline } from './timeline.jsx';

export function RunsView({ args: [id] }) {
  return id ? <Run id={id} /> : <RunList />;
}

const FILTERS = [
  ['agent', 'agent'],
  ['tenant', 'tenant'],
];

function RunList() {
  const [filter, setFilter] = useState({ agent: '', tenant: '', status: '', kind: '' });
  const query = new URLSearchParams(Object.entries(filter).filter(([, v]) => v)).toString();
  const { data: runs, error } = useApi(`runs${query ? `?${query}` : ''}`, { everyMs: 3000 });
  const set = (key) => (e) => setFilter({ ...filter, [key]: e.target.value });
  return (
    <section>
      <h2>Runs</h2>
      <form role="group" className="filters" onSubmit={(e) => e.preventDefault()}>
        {FILTERS.map(([key, label]) => (
          <input
            key={key}
            name={key}
            placeholder={label}
            aria-label={label}
            value={filter[key]}
            onChange={set(key)}
          />
        ))}
        <select name="status" aria-label="status" value={filter.status} onChange={set('status')}>
          <option value="">any status</option>
          {['running', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select name="kind" aria-label="kind" value={filter.kind} onChange={set('kind')}>
          <option value="">runs and chats</option>
          <option value="run">runs</option>
          <option value="chat">chats</option>
        </select>
      </form>
      <Problem error={error} />
      {runs && (
        <table className="runs striped">
          <thead>
            <tr>
              <th>run</th>
              <th>agent</th>
              <th>tenant</th>
              <th>kind</th>
              <th>status</th>
              <th>started</th>
              <th>took</th>
              <th>tokens</th>
              <th>cost</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.workflowId} data-workflow-id={run.workflowId} data-status={run.status}>
                <td>
                  {run.parentWorkflowId ? '↳ ' : ''}
                  <a href={`#/runs/${encodeURIComponent(run.workflowId)}`}>{run.workflowId}</a>
                </td>
                <td>{run.agent}</td>
                <td>{run.tenant}</td>
                <td>{run.kind}</td>
                <td>
                  {run.status}
                  {run.waitingForAuthorization.length > 0 && ' (waiting for authorization)'}
                </td>
                <td>{formatTime(run.startTime)}</td>
                <td>
                  {run.closeTime ? formatMs(Date.parse(run.closeTime) - Date.parse(run.startTime)) : ''}
                </td>
                <td>{run.tokens ?? ''}</td>
                <td>{formatCost(run.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {runs?.length === 0 && <p>No runs yet.</p>}
    </section>
  );
}

function Run({ id }) {
  const { data: info } = useApi('info');
  const {
    data: run,
    error,
    reload,
  } = useApi(`runs/${encodeURIComponent(id)}`, {
    everyMs: 1000,
    keepPolling: (r) => r.status === 'running',
  });
  const link =
    info?.temporalUiUrl &&
    `${info.temporalUiUrl}/namespaces/${encodeURIComponent(info.namespace)}/workflows/${encodeURIComponent(id)}`;
  return (
    <section className="run" data-status={run?.status}>
      <p>
        <a href="#/runs">← Runs</a>
      </p>
      <h2>{id}</h2>
      <p>
        Status: <strong className="status">{run?.status ?? '…'}</strong>
        {link && (
          <>
            {' · '}
            <a href={link} target="_blank" rel="noreferrer">
              Open in the Temporal UI
            </a>
          </>
        )}
      </p>
      <Problem error={error} />
      {run?.pendingApprovals.map((approval) => (
        <article key={approval.call_id} className="waiting">
          <strong>{approval.tool}</strong> waits for approval
          {approval.agent ? ` (sub-agent ${approval.agent})` : ''}
          <pre>{JSON.stringify(approval.args, null, 1)}</pre>
          <div role="group">
            <button onClick={() => decide(id, approval.call_id, true).then(reload)}>Approve</button>
            <button className="secondary" onClick={() => decide(id, approval.call_id, false).then(reload)}>
              Reject
            </button>
          </div>
        </article>
      ))}
      {run?.pendingAuthorizations.map((a) => (
        <article key={a.call_id} className="waiting">
          <strong>{a.tool}</strong> waits for a user to authorize {a.credential_key}:{' '}
          <a href={a.url} target="_blank" rel="noreferrer">
            open to grant
          </a>
        </article>
      ))}
      {run && <Timeline timeline={run} />}
    </section>
  );
}
