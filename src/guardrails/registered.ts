import { ConfigurationError } from '../errors.ts';
import type { GuardrailPlan, GuardrailSelection } from './recorded.ts';
import type { Guardrails, InputGuardrail, OutputGuardrail, ToolGuardrail } from './types.ts';

/** An agent's guardrails, checked when the worker is created, by name. */
export interface RegisteredGuardrails {
  input: Map<string, InputGuardrail>;
  output: Map<string, OutputGuardrail>;
  tools: Map<string, ToolGuardrail>;
}

const KINDS = ['input', 'output', 'tools'] as const;

/** Checks and names an agent's `guardrails`; undefined when it has none. */
export function registerGuardrails(
  agent: string,
  guardrails: Guardrails | undefined,
): RegisteredGuardrails | undefined {
  if (guardrails === undefined) return undefined;
  if (typeof guardrails !== 'object' || guardrails === null)
    throw new ConfigurationError(
      `Agent "${agent}": guardrails must be an object { input?, output?, tools? }.`,
    );
  const unknown = Object.keys(guardrails).filter((key) => !(KINDS as readonly string[]).includes(key));
  if (unknown.length)
    throw new ConfigurationError(
      `Agent "${agent}": guardrails has unknown key(s) ${unknown.map((k) => `"${k}"`).join(', ')}; use input, output and tools.`,
    );
  const registered: RegisteredGuardrails = {
    input: named<InputGuardrail>(agent, 'input', guardrails.input),
    output: named<OutputGuardrail>(agent, 'output', guardrails.output),
    tools: named<ToolGuardrail>(agent, 'tools', guardrails.tools),
  };
  for (const check of registered.input.values()) {
    if (check.mode !== undefined && check.mode !== 'blocking' && check.mode !== 'parallel')
      throw new ConfigurationError(
        `Agent "${agent}": input guardrail "${check.name}" has mode ${JSON.stringify(check.mode)}; use 'blocking' or 'parallel'.`,
      );
  }
  const size = registered.input.size + registered.output.size + registered.tools.size;
  return size ? registered : undefined;
}

function named<G extends { name: string; check: unknown }>(
  agent: string,
  kind: (typeof KINDS)[number],
  list: Array<G | G['check']> | undefined,
): Map<string, G> {
  const checks = new Map<string, G>();
  if (list === undefined) return checks;
  if (!Array.isArray(list))
    throw new ConfigurationError(`Agent "${agent}": guardrails.${kind} must be an array of checks.`);
  list.forEach((item, i) => {
    const check = (
      typeof item === 'function' ? { name: item.name || `${kind}_${i + 1}`, check: item } : item
    ) as G;
    if (
      !check ||
      typeof check !== 'object' ||
      typeof check.check !== 'function' ||
      typeof check.name !== 'string' ||
      !check.name
    )
      throw new ConfigurationError(
        `Agent "${agent}": guardrails.${kind}[${i}] must be a function or an object { name, check }.`,
      );
    const { runs } = check as { runs?: unknown };
    if (runs !== undefined && runs !== 'activity' && runs !== 'local')
      throw new ConfigurationError(
        `Agent "${agent}": guardrail "${check.name}" has runs ${JSON.stringify(runs)}; use 'activity' or 'local'.`,
      );
    if (checks.has(check.name))
      throw new ConfigurationError(
        `Agent "${agent}" has two ${kind} guardrails named "${check.name}"; give each a unique name.`,
      );
    checks.set(check.name, check);
  });
  return checks;
}

/**
 * What the workflow needs of an agent's checks (none: undefined; `agent` is whose they are), with the run's own choice of them
 * (`selected`: a name the agent does not have is a clear error).
 */
export function guardrailPlan(
  agent: string,
  registered: RegisteredGuardrails | undefined,
  selected?: GuardrailSelection,
): GuardrailPlan | undefined {
  const guardrails = registered && selected ? choose(agent, registered, selected) : registered;
  if (!guardrails) return undefined;
  const chosen = {
    ...(selected?.output ? { output_names: [...guardrails.output.keys()] } : {}),
    ...(selected?.tools ? { tool_names: [...guardrails.tools.keys()] } : {}),
  };
  return {
    owner: agent,
    ...chosen,
    ...(guardrails.input.size
      ? {
          input: [...guardrails.input.values()].map((g) => ({
            name: g.name,
            mode: g.mode ?? 'blocking',
            ...(g.runs === 'local' ? { local: true as const } : {}),
          })),
        }
      : {}),
    ...(guardrails.output.size
      ? {
          output: [...guardrails.output.values()].map((g) => ({
            name: g.name,
            ...(g.runs === 'local' ? { local: true as const } : {}),
          })),
        }
      : {}),
  };
}

/** The checks a run chose, by kind (a kind it did not name: all of them). */
function choose(
  agent: string,
  guardrails: RegisteredGuardrails,
  selected: GuardrailSelection,
): RegisteredGuardrails {
  const pick = <G>(kind: 'input' | 'output' | 'tools', checks: Map<string, G>): Map<string, G> => {
    const names = selected[kind];
    if (names === undefined) return checks;
    if (!Array.isArray(names))
      throw new ConfigurationError(`The run's guardrails.${kind} must be an array of check names.`);
    const unknown = names.filter((name) => !checks.has(name));
    if (unknown.length)
      throw new ConfigurationError(
        `The run names ${kind} guardrail(s) ${unknown.map((n) => `"${n}"`).join(', ')} that agent "${agent}" ` +
          `does not have (it has: ${[...checks.keys()].map((n) => `"${n}"`).join(', ') || 'none'}).`,
      );
    return new Map([...checks].filter(([name]) => names.includes(name)));
  };
  return {
    input: pick('input', guardrails.input),
    output: pick('output', guardrails.output),
    tools: pick('tools', guardrails.tools),
  };
}

/**
 * Whose guardrails a run of `agent` runs: its own, else (a sub-agent run without guardrails of its
 * own) its parent's, when the parent is served by this worker.
 */
export function guardrailsOwner(
  agents: ReadonlyMap<string, { guardrails?: RegisteredGuardrails }>,
  agent: string,
  parent: string | undefined,
): { owner: string; guardrails: RegisteredGuardrails } | undefined {
  const own = agents.get(agent)?.guardrails;
  if (own) return { owner: agent, guardrails: own };
  const inherited = parent === undefined ? undefined : agents.get(parent)?.guardrails;
  return inherited && { owner: parent!, guardrails: inherited };
}
