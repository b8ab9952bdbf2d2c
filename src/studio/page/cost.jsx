// Cost: tokens, cost and the share of input read from the prompt cache, per day, agent and tenant,
// from the usage ledger (the reports `toolkit-agent usage --json` prints), and the tenants' quotas.
import { BarElement, CategoryScale, Chart, Colors, Legend, LinearScale, Tooltip } from 'chart.js';
import { useState } from 'react';
import { Bar } from 'react-chartjs-2';
import { formatCost, Problem, useApi } from './api.jsx';

Chart.register(BarElement, CategoryScale, Colors, LinearScale, Legend, Tooltip);
Chart.defaults.animation = false;

const sum = (values) => values.reduce((a, b) => a + b, 0);

/** A bar chart whose figure says the sum of what it draws (`data-total`), for eyes and tests alike. */
function BarChart({ id, title, groups, series, stacked = false, format = String }) {
  const labels = groups.map((g) => g.key || '(none)');
  const datasets = series.map(([label, pick]) => ({ label, data: groups.map(pick) }));
  const total = sum(datasets.flatMap((d) => d.data));
  return (
    <figure data-chart={id} data-total={total}>
      <figcaption>
        {title} — total {format(total)}
      </figcaption>
      <Bar
        data={{ labels, datasets }}
        options={{ responsive: true, scales: { x: { stacked }, y: { stacked, beginAtZero: true } } }}
      />
    </figure>
  );
}

const share = (g) => (g.input_tokens ? Math.round((1000 * g.cached_input_tokens) / g.input_tokens) / 10 : 0);

export function CostView() {
  const [since, setSince] = useState('7d');
  const { data: cost, error } = useApi(`cost?since=${encodeURIComponent(since)}`);
  const totals = cost?.byDay.totals;
  const priced = totals?.cost !== undefined;
  return (
    <section>
      <h2>Cost</h2>
      <label>
        Since{' '}
        <select name="since" value={since} onChange={(e) => setSince(e.target.value)}>
          {['1d', '7d', '30d', '90d'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <Problem error={error} />
      {totals && (
        <>
          <table className="totals" data-testid="totals">
            <thead>
              <tr>
                <th>runs</th>
                <th>input tokens</th>
                <th>output tokens</th>
                <th>cache reads</th>
                <th>tool calls</th>
                {priced && <th>cost</th>}
              </tr>
            </thead>
            <tbody>
              <tr>
                <td data-total="runs">{totals.runs}</td>
                <td data-total="input_tokens">{totals.input_tokens}</td>
                <td data-total="output_tokens">{totals.output_tokens}</td>
                <td data-total="cached_input_tokens">{totals.cached_input_tokens}</td>
                <td data-total="tool_calls">{totals.tool_calls}</td>
                {priced && <td data-total="cost">{formatCost(totals.cost)}</td>}
              </tr>
            </tbody>
          </table>
          {cost.byDay.unpriced_models?.length > 0 && (
            <p>No price for: {cost.byDay.unpriced_models.join(', ')}</p>
          )}
          <div className="charts">
            <BarChart
              id="tokens-per-day"
              title="Tokens per day"
              stacked
              groups={cost.byDay.groups ?? []}
              series={[
                ['input', (g) => g.input_tokens],
                ['output', (g) => g.output_tokens],
              ]}
            />
            {priced && (
              <BarChart
                id="cost-per-agent"
                title="Cost per agent"
                groups={cost.byAgent.groups ?? []}
                series={[['cost ($)', (g) => g.cost ?? 0]]}
                format={formatCost}
              />
            )}
            <BarChart
              id="tokens-per-tenant"
              title="Tokens per tenant"
              stacked
              groups={cost.byTenant.groups ?? []}
              series={[
                ['input', (g) => g.input_tokens],
                ['output', (g) => g.output_tokens],
              ]}
            />
            {priced && (
              <BarChart
                id="cost-per-tenant"
                title="Cost per tenant"
                groups={cost.byTenant.groups ?? []}
                series={[['cost ($)', (g) => g.cost ?? 0]]}
                format={formatCost}
              />
            )}
            {[
              ['day', cost.byDay],
              ['agent', cost.byAgent],
              ['tenant', cost.byTenant],
            ].map(([by, report]) => (
              <figure key={by} data-chart={`cache-share-per-${by}`}>
                <figcaption>Input read from the prompt cache, per {by} (%)</figcaption>
                <Bar
                  data={{
                    labels: (report.groups ?? []).map((g) => g.key || '(none)'),
                    datasets: [{ label: 'cache reads (%)', data: (report.groups ?? []).map(share) }],
                  }}
                  options={{ scales: { y: { beginAtZero: true, max: 100 } } }}
                />
              </figure>
            ))}
          </div>
          <h3>Quotas</h3>
          {cost.quotas.length === 0 ? (
            <p>No daily token quota is set.</p>
          ) : (
            <table className="quotas">
              <thead>
                <tr>
                  <th>tenant</th>
                  <th>tokens per day</th>
                  <th>used today</th>
                  <th>left</th>
                </tr>
              </thead>
              <tbody>
                {cost.quotas.map((q) => (
                  <tr key={q.tenant}>
                    <td>{q.tenant || '(none)'}</td>
                    <td>{q.maxTokensPerDay}</td>
                    <td>{q.usedToday}</td>
                    <td>
                      <progress value={q.left} max={q.maxTokensPerDay} /> {q.left}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
