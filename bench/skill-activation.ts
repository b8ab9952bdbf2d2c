/**
 * Benchmark part: model-driven skill activation at catalog scale. A worker's run start
 * (`resolveSkills`) with the skill listing (`skillActivation: 'both'`) against the same agent with
 * trigger matching only (the baseline, same run), the characters the listing spends against listing
 * every skill, and `load_skill` on a 10,000-skill catalog.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAgentRegistry } from '../src/activities/registry.ts';
import { resolveSkills } from '../src/activities/resolve-skills.ts';
import { InMemoryMemoryStore } from '../src/memory/in-memory.ts';
import { ScriptedModel } from '../src/models/scripted.ts';
import { listingEntry } from '../src/skills/listing.ts';
import type { Skill } from '../src/skills/skill.ts';
import type { ToolContext } from '../src/tools/connector-base.ts';

export interface ActivationResults {
  skills: number;
  runs: number;
  /** Medians over `runs` run starts; p90 of the listing's too. */
  listing_ms_per_run_start: number;
  listing_ms_p90: number;
  triggers_ms_per_run_start: number;
  overhead_ratio: number;
  listing_chars: number;
  listed_skills: number;
  unbudgeted_listing_chars: number;
  load_skill_ms: number;
  targets: { listing_ms_per_run_start: number; listing_chars: number };
}

const ROUNDS = 4;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
const median = (values: number[]) => percentile(values, 0.5);

export async function measureActivation(skills: Skill[], prompts: string[]): Promise<ActivationResults> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-activation-'));
  try {
    const catalog = join(dir, 'skills.json');
    await writeFile(catalog, JSON.stringify({ version: 1, skills }));
    const common = {
      llm: new ScriptedModel([]),
      skillSource: catalog,
      autoProjectSkills: false,
      autoUseSkills: true,
    };
    const registry = buildAgentRegistry(
      {
        listing: { ...common, skillActivation: 'both' },
        triggers: { ...common, skillActivation: 'triggers' },
      },
      new InMemoryMemoryStore(),
    );
    const listing = registry.get('listing')!;
    const triggers = registry.get('triggers')!;
    // Warm up both: the catalog is read, indexed and compiled once per worker, not per run.
    for (const prompt of prompts.slice(0, 3)) {
      await resolveSkills(listing, prompt);
      await resolveSkills(triggers, prompt);
    }
    // Interleaved, so both see the same machine load; the median, so a GC pause does not decide.
    const listingMs: number[] = [];
    const baselineMs: number[] = [];
    let last = await resolveSkills(listing, prompts[0]!);
    for (let round = 0; round < ROUNDS; round++) {
      for (const prompt of prompts) {
        let start = performance.now();
        last = await resolveSkills(listing, prompt);
        listingMs.push(performance.now() - start);
        start = performance.now();
        await resolveSkills(triggers, prompt);
        baselineMs.push(performance.now() - start);
      }
    }
    const withListing = { ms: median(listingMs), p90: percentile(listingMs, 0.9), last };
    const baseline = { ms: median(baselineMs) };

    const load = listing.tools.get('load_skill')!;
    const context = {} as ToolContext;
    const ids = prompts.map((_, i) => skills[(i * 97) % skills.length]!.id);
    await load.run(context, { id: ids[0]! });
    const loads: number[] = [];
    for (const id of ids) {
      const start = performance.now();
      await load.run(context, { id });
      loads.push(performance.now() - start);
    }
    const loadMs = median(loads);

    return {
      skills: skills.length,
      runs: prompts.length * ROUNDS,
      listing_ms_per_run_start: withListing.ms,
      listing_ms_p90: withListing.p90,
      triggers_ms_per_run_start: baseline.ms,
      overhead_ratio: withListing.ms / baseline.ms,
      listing_chars: withListing.last.listing.length,
      listed_skills: withListing.last.listing.split('\n').filter((line) => line.startsWith('- ')).length,
      unbudgeted_listing_chars: skills.reduce((sum, skill) => sum + listingEntry(skill).length, 0),
      load_skill_ms: loadMs,
      targets: { listing_ms_per_run_start: 5, listing_chars: 8_000 },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function activationTable(r: ActivationResults): string[] {
  const f = (n: number) => n.toFixed(3);
  return [
    `## Skills the model loads: ${r.skills} skills, listing and load_skill`,
    '',
    '| measure | value |',
    '| --- | --- |',
    `| run start with the listing (skillActivation 'both'), median of ${r.runs} | ${f(r.listing_ms_per_run_start)} ms (target ≤ 5 ms; p90 ${f(r.listing_ms_p90)} ms) |`,
    `| run start with triggers only (baseline, same runs), median | ${f(r.triggers_ms_per_run_start)} ms |`,
    `| listing / baseline | ${r.overhead_ratio.toFixed(2)}× |`,
    `| prompt characters spent on the listing | ${r.listing_chars} (${r.listed_skills} skills; budget 8,000) |`,
    `| every skill listed, unbudgeted | ${r.unbudgeted_listing_chars} characters |`,
    `| load_skill, per call (median) | ${f(r.load_skill_ms)} ms |`,
    '',
  ];
}
