// The studio page: one view per hash route (#/agents, #/runs/<id>, #/approvals, #/cost, #/evals, #/memory).
import './no-eval.js';
import '@picocss/pico/css/pico.min.css';
import './studio.css';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { AgentsView } from './agents.jsx';
import { ApprovalsView } from './approvals.jsx';
import { CostView } from './cost.jsx';
import { EvalsView } from './evals.jsx';
import { MemoryView } from './memory.jsx';
import { RunsView } from './runs.jsx';

const VIEWS = [
  ['agents', 'Agents', AgentsView],
  ['runs', 'Runs', RunsView],
  ['approvals', 'Approvals', ApprovalsView],
  ['cost', 'Cost', CostView],
  ['evals', 'Evals', EvalsView],
  ['memory', 'Memory', MemoryView],
];

function useRoute() {
  const read = () => (location.hash.replace(/^#\/?/, '') || 'agents').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = () => setRoute(read());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function Studio() {
  const [view, ...rest] = useRoute();
  const View = (VIEWS.find(([name]) => name === view) ?? VIEWS[0])[2];
  return (
    <>
      <header className="container-fluid">
        <nav>
          <ul>
            <li>
              <strong>toolkit-agent studio</strong>
            </li>
          </ul>
          <ul>
            {VIEWS.map(([name, title]) => (
              <li key={name}>
                <a href={`#/${name}`} aria-current={name === view ? 'page' : undefined}>
                  {title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main className="container-fluid" data-view={view}>
        <View args={rest} />
      </main>
    </>
  );
}

createRoot(document.getElementById('root')).render(<Studio />);
