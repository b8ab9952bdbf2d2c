import type { McpAgentTools } from './agent-tools.ts';
import type { UnavailableMcp } from '../common/run.ts';
import type { ToolSchema } from '../common/messages.ts';
import type { SecretSet } from '../redaction.ts';
import type { Skill } from '../skills/skill.ts';
import { TOOL_SEARCH_NAME } from '../tools/tool-search.ts';
import { McpTool } from './mcp-tool.ts';

/** What a run gets from the agent's MCP servers. */
export interface McpRunTools {
  /** Tools of servers offered to every run (empty with `toolSearch`: the search finds them). */
  tools: string[];
  /** Tools of `skillsOnly` servers that a selected skill names in `mcps`. */
  skillTools: string[];
  /** Server names selected skills list that this worker does not have (or could not list). */
  unavailable: string[];
  /** Servers this run was to get that could not be listed, with why (redacted; a 401 names the credential key). */
  failed: UnavailableMcp[];
}

const NONE: McpRunTools = { tools: [], skillTools: [], unavailable: [], failed: [] };

/** What these functions read of an agent: its MCP servers, and its own tools and their schemas. */
export interface McpToolOwner {
  mcp?: McpAgentTools | undefined;
  tools: ReadonlyMap<string, unknown>;
  schemas: ReadonlyMap<string, ToolSchema>;
}

/**
 * The MCP tools of one run, listed inside `resolveRun` (an activity): the servers without
 * `skillsOnly`, plus the `skillsOnly` servers that a selected skill names in `mcps`.
 */
export async function mcpToolsForRun(
  agent: McpToolOwner,
  skills: ReadonlyArray<Pick<Skill, 'mcps'>>,
  tenant: string | undefined,
): Promise<McpRunTools> {
  const wanted = [...new Set(skills.flatMap((skill) => skill.mcps ?? []))];
  const mcp = agent.mcp;
  if (!mcp) return wanted.length ? { ...NONE, unavailable: wanted } : NONE;
  const everyRun = mcp.everyRunServers;
  const bySkill = wanted.filter((name) => mcp.servers.get(name)?.skillsOnly);
  const { entries, failed } = await mcp.list([...everyRun, ...bySkill], { tenant });
  const searched = agent.tools.has(TOOL_SEARCH_NAME);
  return {
    tools: searched ? [] : entries.filter((entry) => !entry.skillsOnly).map((entry) => entry.name),
    skillTools: entries.filter((entry) => entry.skillsOnly).map((entry) => entry.name),
    unavailable: wanted.filter((name) => !mcp.servers.has(name) || failed.has(name)),
    failed: [...failed].map(([server, reason]) => ({ server, reason })),
  };
}

/** Schemas of the MCP tools among `names` (for `callModel`), listing their servers when this worker has not yet. */
export async function mcpSchemas(
  agent: McpToolOwner,
  names: readonly string[],
  tenant: string | undefined,
): Promise<Map<string, ToolSchema>> {
  const schemas = new Map<string, ToolSchema>();
  const mcp = agent.mcp;
  if (!mcp) return schemas;
  const wanted = names.filter((name) => !agent.schemas.has(name) && mcp.serverOf(name));
  const servers = [...new Set(wanted.map((name) => mcp.serverOf(name)!))];
  const { entries } = await mcp.list(servers, { tenant });
  for (const entry of entries) if (wanted.includes(entry.name)) schemas.set(entry.name, entry.schema);
  return schemas;
}

/**
 * The MCP tool a call names, for `invokeTool`: a `skillsOnly` server's tool only when the run's skills
 * attached it (`skillTools`), like the built-in tools.
 */
export async function mcpToolFor(
  agent: McpToolOwner,
  name: string,
  run: { tenant?: string; skillTools?: readonly string[]; secrets: SecretSet; signal?: AbortSignal },
): Promise<McpTool | undefined> {
  const mcp = agent.mcp;
  if (!mcp?.serverOf(name)) return undefined;
  const entry = await mcp.lookup(name, run);
  if (!entry || (entry.skillsOnly && !run.skillTools?.includes(name))) return undefined;
  return new McpTool(entry, mcp);
}

/** The schemas `tool_search` indexes besides the agent's own: the tools of servers offered to every run. */
export async function searchableMcpSchemas(
  agent: Pick<McpToolOwner, 'mcp'>,
  tenant: string | undefined,
  secrets: SecretSet,
): Promise<ToolSchema[]> {
  const mcp = agent.mcp;
  if (!mcp) return [];
  const { entries } = await mcp.list(mcp.everyRunServers, { tenant, secrets });
  return entries.map((entry) => entry.schema);
}
