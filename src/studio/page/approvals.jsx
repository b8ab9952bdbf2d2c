// Approvals: every tool call waiting for a person's yes, or for a user's grant, across the running
// runs and chat sessions, decided here.
import { useState } from 'react';
import { decide, formatTime, Problem, useApi } from './api.jsx';

export function ApprovalsView() {
  const { data: waiting, error, reload } = useApi('waiting', { everyMs: 2000 });
  const [failure, setFailure] = useState();
  const act = (call, approved) =>
    decide(call.workflowId, call.call_id, approved).then(
      () => reload(),
      (e) => setFailure(e.message),
    );
  return (
    <section>
      <h2>Waiting calls</h2>
      <Problem error={error ?? failure} />
      {waiting?.length === 0 && <p className="empty">Nothing waits.</p>}
      {waiting && waiting.length > 0 && (
        <table className="waiting striped">
          <thead>
            <tr>
              <th>run</th>
              <th>agent</th>
              <th>tenant</th>
              <th>call</th>
              <th>since</th>
              <th>decide</th>
            </tr>
          </thead>
          <tbody>
            {waiting.map((call) => (
              <tr
                key={`${call.workflowId}:${call.call_id}`}
                data-call-id={call.call_id}
                data-kind={call.kind}
              >
                <td>
                  <a href={`#/runs/${encodeURIComponent(call.workflowId)}`}>{call.workflowId}</a>
                </td>
                <td>{call.agent}</td>
                <td>{call.tenant}</td>
                <td>
                  <code>{call.tool}</code> {call.args && <small>{JSON.stringify(call.args)}</small>}
                </td>
                <td>{formatTime(call.requested_at)}</td>
                <td>
                  {call.kind === 'approval' ? (
                    <div role="group">
                      <button onClick={() => act(call, true)}>Approve</button>
                      <button className="secondary" onClick={() => act(call, false)}>
                        Reject
                      </button>
                    </div>
                  ) : (
                    <a href={call.url} target="_blank" rel="noreferrer">
                      Authorize
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
