// Evals: the saved reports of `toolkit-agent eval --json`, one shown case by case, two compared.
import { useState } from 'react';
import { formatCost, formatMs, Problem, useApi } from './api.jsx';

const percent = (rate) => `${Math.round(rate * 1000) / 10}%`;

export function EvalsView({ args: [file, current] }) {
  if (file === 'compare')
    return <Compare baseline={current?.split('..')[0]} current={current?.split('..')[1]} />;
  return file ? <Report file={file} /> : <ReportList />;
}

function ReportList() {
  const { data: reports, error } = useApi('evals');
  const [picked, setPicked] = useState([]);
  const toggle = (file) =>
    setPicked((p) => (p.includes(file) ? p.filter((f) => f !== file) : [...p.slice(-1), file]));
  return (
    <section>
      <h2>Eval reports</h2>
      <Problem error={error} />
      {reports?.length === 0 && (
        <p>
          No reports: save one with toolkit-agent eval &lt;dataset&gt; --json &gt; evals/&lt;name&gt;.json.
        </p>
      )}
      {reports?.length > 0 && (
        <>
          <table className="reports striped">
            <thead>
              <tr>
                <th>compare</th>
                <th>file</th>
                <th>dataset</th>
                <th>agent</th>
                <th>passed</th>
                <th>tokens</th>
                <th>saved</th>
              </tr>
            </thead>
            <tbody>
              {reports.map((r) => (
                <tr key={r.file} data-file={r.file}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`compare ${r.file}`}
                      checked={picked.includes(r.file)}
                      onChange={() => toggle(r.file)}
                    />
                  </td>
                  <td>
                    <a href={`#/evals/${encodeURIComponent(r.file)}`}>{r.file}</a>
                  </td>
                  <td>{r.name}</td>
                  <td>{r.agent}</td>
                  <td>
                    {r.passed}/{r.attempts} ({percent(r.passRate)})
                  </td>
                  <td>{r.totalTokens}</td>
                  <td>{new Date(r.savedAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <a
            role="button"
            id="compare"
            aria-disabled={picked.length !== 2}
            href={
              picked.length === 2 ? `#/evals/compare/${picked.map(encodeURIComponent).join('..')}` : undefined
            }
          >
            Compare the two picked
          </a>
        </>
      )}
    </section>
  );
}

function Report({ file }) {
  const { data: report, error } = useApi(`evals/${encodeURIComponent(file)}`);
  return (
    <section className="report">
      <p>
        <a href="#/evals">← Eval reports</a>
      </p>
      <h2>{file}</h2>
      <Problem error={error} />
      {report && (
        <>
          <p>
            {report.name} on {report.agent}:{' '}
            <strong>
              {report.passed}/{report.attempts}
            </strong>{' '}
            passed ({percent(report.passRate)}), {report.usage.total_tokens} tokens,{' '}
            {formatMs(report.durationMs)}
          </p>
          <table className="cases striped">
            <thead>
              <tr>
                <th>case</th>
                <th>passed</th>
                <th>scores</th>
                <th>tokens</th>
                <th>time</th>
              </tr>
            </thead>
            <tbody>
              {report.cases.map((c) => (
                <tr key={c.name} data-case={c.name}>
                  <td>{c.name}</td>
                  <td>
                    {c.attempts.filter((a) => a.pass).length}/{c.attempts.length}
                  </td>
                  <td>
                    {c.attempts.flatMap((a) =>
                      a.run.error
                        ? [<div key={`${a.attempt}-error`}>run failed: {a.run.error}</div>]
                        : a.scores.map((s) => (
                            <div key={`${a.attempt}-${s.scorer}`} className={s.pass ? 'better' : 'worse'}>
                              {s.scorer}: {s.score.toFixed(2)}
                              {s.reason ? ` (${s.reason})` : ''}
                            </div>
                          )),
                    )}
                  </td>
                  <td>{c.attempts.reduce((n, a) => n + a.run.usage.total_tokens, 0)}</td>
                  <td>
                    {formatMs(c.attempts.reduce((n, a) => n + a.run.durationMs, 0) / c.attempts.length)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

const arrow = (from, to) => `${from ?? '-'} → ${to ?? '-'}`;

function Compare({ baseline, current }) {
  const { data: comparison, error } = useApi(
    `evals/compare?baseline=${encodeURIComponent(baseline ?? '')}&current=${encodeURIComponent(current ?? '')}`,
  );
  return (
    <section className="comparison">
      <p>
        <a href="#/evals">← Eval reports</a>
      </p>
      <h2>
        {current} against {baseline}
      </h2>
      <Problem error={error} />
      {comparison && (
        <>
          <p>
            <span className="better">{comparison.better} better</span>,{' '}
            <span className="worse">{comparison.worse} worse</span>
          </p>
          <table className="cases striped">
            <thead>
              <tr>
                <th>case</th>
                <th>change</th>
                <th>passed</th>
                <th>score</th>
                <th>tokens</th>
                <th>time</th>
                <th>cost</th>
              </tr>
            </thead>
            <tbody>
              {comparison.cases.map(({ name, change, baseline: b, current: c }) => (
                <tr key={name} data-case={name} data-change={change}>
                  <td>{name}</td>
                  <td className={change}>{change}</td>
                  <td>{arrow(b && percent(b.passRate), c && percent(c.passRate))}</td>
                  <td>{arrow(b?.score.toFixed(2), c?.score.toFixed(2))}</td>
                  <td>{arrow(b && Math.round(b.tokens), c && Math.round(c.tokens))}</td>
                  <td>{arrow(b && formatMs(b.latencyMs), c && formatMs(c.latencyMs))}</td>
                  <td>{arrow(b && formatCost(b.cost), c && formatCost(c.cost))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
