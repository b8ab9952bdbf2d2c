import type { Client } from '@temporalio/client';
import { TOOLKIT_AGENT } from '../visibility/search-attributes.ts';

/** One sub-agent run in a run's tree, as `runs show` prints it. */
export interface SubRunNode {
  workflowId: string;
  agent: string | undefined;
  status: string;
  children: SubRunNode[];
}

/**
 * The sub-agent runs below a run, recursively (at most `maxDepth` levels), through Temporal's
 * visibility API (`ParentWorkflowId`): eventually consistent, so a child started a moment ago may
 * be missing.
 */
export async function subRunTree(client: Client, workflowId: string, maxDepth = 5): Promise<SubRunNode[]> {
  if (maxDepth < 1) return [];
  const nodes: SubRunNode[] = [];
  const query = `ParentWorkflowId = '${workflowId.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  for await (const info of client.workflow.list({ query })) {
    const memo = info.memo ?? {};
    nodes.push({
      workflowId: info.workflowId,
      agent:
        info.typedSearchAttributes.get(TOOLKIT_AGENT) ??
        (typeof memo.agent === 'string' ? memo.agent : undefined),
      status: info.status.name.toLowerCase(),
      children: await subRunTree(client, info.workflowId, maxDepth - 1),
    });
  }
  return nodes.sort((a, b) => a.workflowId.localeCompare(b.workflowId));
}

/** The tree as indented lines: `└─ billing  <workflow id>  completed`. */
export function treeLines(nodes: SubRunNode[], indent = ''): string[] {
  return nodes.flatMap((node, i) => {
    const last = i === nodes.length - 1;
    const line = `${indent}${last ? '└─' : '├─'} ${node.agent ?? '?'}  ${node.workflowId}  ${node.status}`;
    return [line, ...treeLines(node.children, `${indent}${last ? '   ' : '│  '}`)];
  });
}
