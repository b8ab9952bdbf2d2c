import { setTimeout as sleep } from 'node:timers/promises';

/** Billable actions by operation, with their sum. */
export interface ActionCost {
  total: number;
  by: Record<string, number>;
}

/**
 * Counts Temporal's billable actions (the dev server's `action` metric, the unit Temporal Cloud bills)
 * in one namespace, read from the server's Prometheus endpoint (`--metrics-port`).
 */
export class ActionCounter {
  readonly metricsUrl: string;
  readonly namespace: string;

  constructor(metricsUrl: string, namespace: string) {
    this.metricsUrl = metricsUrl;
    this.namespace = namespace;
  }

  /** The actions so far, by operation. */
  async read(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const line of (await (await fetch(this.metricsUrl)).text()).split('\n')) {
      if (!line.startsWith('action{') || !line.includes(`namespace="${this.namespace}"`)) continue;
      const operation = /operation="([^"]*)"/.exec(line)?.[1] ?? '?';
      counts.set(operation, (counts.get(operation) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
    }
    return counts;
  }

  /**
   * The counts once the server has reported everything done so far: it adds some a moment after it
   * answered, so they are read until two reads a second apart agree (at most 15 reads).
   */
  async settled(): Promise<Map<string, number>> {
    let last = await this.read();
    for (let read = 0; read < 15; read++) {
      await sleep(1_000);
      const now = await this.read();
      if (JSON.stringify([...now].sort()) === JSON.stringify([...last].sort())) return now;
      last = now;
    }
    throw new Error(`The server's action counts at ${this.metricsUrl} did not settle in 15 s.`);
  }

  /** The actions `work` cost, in all and by operation. */
  async costOf(work: () => Promise<unknown>): Promise<ActionCost> {
    const before = await this.settled();
    await work();
    const after = await this.settled();
    const by: Record<string, number> = {};
    for (const [operation, count] of after) {
      const added = count - (before.get(operation) ?? 0);
      if (added) by[operation] = added;
    }
    return { total: Object.values(by).reduce((sum, n) => sum + n, 0), by };
  }
}
