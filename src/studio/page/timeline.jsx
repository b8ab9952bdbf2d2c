// A run's timeline: every event of the run in order, each sub-agent run's nested under the call
// that started it, with how long each step, call and wait took.
import { formatMs } from './api.jsx';

const ENDS = {
  tool_called: ['tool_completed', 'tool_failed'],
  approval_requested: ['approval_granted', 'approval_rejected'],
  authorization_required: ['authorization_granted', 'authorization_timed_out'],
};

/** How long `event` lasted: a step until the next event, a call or wait until what ended it. */
function durationOf(events, i) {
  const event = events[i];
  const at = Date.parse(event.timestamp);
  if (event.type === 'tool_waiting' || event.type === 'model_waiting') return event.payload.retry_after_ms;
  if (event.type === 'step_started') {
    const next = events[i + 1];
    return next ? Date.parse(next.timestamp) - at : undefined;
  }
  const ends = ENDS[event.type];
  if (!ends) return undefined;
  const end = events
    .slice(i + 1)
    .find((e) => ends.includes(e.type) && e.payload.call_id === event.payload.call_id);
  return end ? Date.parse(end.timestamp) - at : undefined;
}

/** What an event says beyond its message: a call's arguments, a result, a verdict. */
function detailOf(event) {
  const p = event.payload;
  if (event.type === 'tool_called') return p.args;
  if (event.type === 'tool_completed') return p.output ?? p.result;
  if (event.type === 'tool_failed') return p.error;
  if (event.type === 'approval_requested') return p.args;
  if (event.type === 'guardrail_tripped') return { check: p.check, kind: p.kind, reason: p.reason };
  if (event.type === 'run_completed') return { usage: p.usage, model: p.model };
  return undefined;
}

function rowsOf(timeline, depth, rows) {
  const { events, children } = timeline;
  events.forEach((event, i) => {
    rows.push({ key: `${timeline.workflowId}:${event.seq}`, event, depth, ms: durationOf(events, i) });
    const child = event.type === 'tool_called' && children[event.payload.child_run];
    if (child) rowsOf(child, depth + 1, rows);
  });
  return rows;
}

export function Timeline({ timeline }) {
  const start = Date.parse(timeline.events[0]?.timestamp ?? new Date().toISOString());
  return (
    <table className="timeline striped">
      <thead>
        <tr>
          <th>#</th>
          <th>at</th>
          <th>event</th>
          <th>what</th>
          <th>took</th>
        </tr>
      </thead>
      <tbody>
        {rowsOf(timeline, 0, []).map(({ key, event, depth, ms }) => {
          const detail = detailOf(event);
          return (
            <tr
              key={key}
              className={depth ? 'sub' : undefined}
              data-seq={event.seq}
              data-type={event.type}
              data-depth={depth}
              style={depth ? { '--depth': depth } : undefined}
            >
              <td style={{ paddingLeft: `${depth * 1.5 + 0.5}rem` }}>{event.seq}</td>
              <td>+{formatMs(Date.parse(event.timestamp) - start)}</td>
              <td>
                <code>{event.type}</code>
                {depth > 0 && event.payload.agent ? ` (${event.payload.agent})` : ''}
              </td>
              <td>
                {event.type === 'text_delta' ? event.payload.text : event.message}
                {detail !== undefined && (
                  <pre>{typeof detail === 'string' ? detail : JSON.stringify(detail, null, 1)}</pre>
                )}
              </td>
              <td>{formatMs(ms)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
