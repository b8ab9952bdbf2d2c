// How the page talks to the studio's API: under the base the server named, with the token the
// printed URL carried (#token=..., kept for this tab only, and taken off the address bar).
import { useCallback, useEffect, useState } from 'react';

export const base = document.querySelector('meta[name="toolkit-agent-studio-base"]')?.content ?? '/';

const fromUrl = new URLSearchParams(location.hash.slice(1)).get('token');
if (fromUrl) {
  sessionStorage.setItem('studioToken', fromUrl);
  history.replaceState(null, '', `${location.pathname}#/agents`);
}
const token = sessionStorage.getItem('studioToken');

/** The headers every API request carries. */
export const authHeaders = token ? { authorization: `Bearer ${token}` } : {};

/** The JSON of `GET|POST <base>api/<path>`; a refusal throws its `{ error }`. */
export async function api(path, init = {}) {
  const response = await fetch(`${base}api/${path}`, {
    ...init,
    headers: {
      ...authHeaders,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
  });
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  return body;
}

/** `api(path)` as state, read again with `reload()` and, with `everyMs`, while `keepPolling(data)` says so. */
export function useApi(path, { everyMs, keepPolling = () => true } = {}) {
  const [state, setState] = useState({ data: undefined, error: undefined });
  const reload = useCallback(
    () =>
      path === null
        ? Promise.resolve()
        : api(path).then(
            (data) => setState({ data, error: undefined }),
            (error) => setState((s) => ({ data: s.data, error: error.message })),
          ),
    [path],
  );
  useEffect(() => {
    setState({ data: undefined, error: undefined });
    void reload();
  }, [reload]);
  const polling = everyMs !== undefined && (state.data === undefined || keepPolling(state.data));
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(() => void reload(), everyMs);
    return () => clearInterval(timer);
  }, [polling, reload, everyMs]);
  return { ...state, reload };
}

/** Decides a waiting call of a run. */
export function decide(workflowId, callId, approved) {
  return api(`runs/${encodeURIComponent(workflowId)}/calls/${encodeURIComponent(callId)}`, {
    method: 'POST',
    body: JSON.stringify(
      approved ? { approved: true } : { approved: false, reason: 'Rejected in the studio.' },
    ),
  });
}

export const formatTime = (iso) => (iso ? new Date(iso).toLocaleString() : '');
export const formatMs = (ms) =>
  ms === undefined ? '' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
export const formatCost = (cost) => (cost === undefined || cost === null ? '' : `$${cost.toFixed(6)}`);

/** Shows an API error, or nothing. */
export function Problem({ error }) {
  return error ? (
    <p className="problem" role="alert">
      {error}
    </p>
  ) : null;
}
