/**
 * Benchmark (not a test): skill selection at catalog scale.
 * 1. Trigger matching: 10,000 skills × 3 phrases against a 2,000-character prompt, our token
 *    Aho–Corasick matcher vs one precompiled regular expression per phrase, same run, same answers.
 * 2. Fuzzy search over 10,000 skills with typo'd queries: MiniSearch (what SkillSearchIndex uses)
 *    vs Fuse.js, latency and hit@1.
 * 3. Skills the model loads: run start with the skill listing and load_skill at 10,000 skills
 *    (bench/skill-activation.ts), against run start with triggers only.
 * Writes bench/results/skills.json and .md.
 */
import Fuse from 'fuse.js';
import { SkillSearchIndex } from '../src/skills/search.ts';
import { createSkill, type Skill } from '../src/skills/skill.ts';
import { TriggerMatcher } from '../src/skills/triggers.ts';
import { activationTable, measureActivation } from './skill-activation.ts';
import { writeResults } from './write-results.ts';

const SKILLS = 10_000;
const PHRASES_PER_SKILL = 3;
const PROMPT_CHARS = 2_000;
const PROMPTS = 50;
const QUERIES = 100;

/** A small deterministic PRNG (mulberry32), so every run measures the same catalog. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = random(42);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

const syllables = [
  'ka',
  'lo',
  'mi',
  'ser',
  'tan',
  'vo',
  'rel',
  'pix',
  'dun',
  'qua',
  'zen',
  'bor',
  'fi',
  'gra',
  'hul',
  'jet',
  'nor',
  'pel',
  'sku',
  'wex',
];
const words = Array.from(
  new Set(Array.from({ length: 3000 }, () => pick(syllables) + pick(syllables) + pick(syllables))),
);
const phrase = () => Array.from({ length: 2 + Math.floor(rand() * 2) }, () => pick(words)).join(' ');

const skills: Skill[] = Array.from({ length: SKILLS }, (_, i) =>
  createSkill({
    name: `${pick(words)} ${pick(words)} ${i}`,
    description: `Helps with ${pick(words)} ${pick(words)} and ${pick(words)} work`,
    tags: [pick(words), pick(words)],
    use_cases: [`${pick(words)} ${pick(words)}`],
    trigger_phrases: Array.from({ length: PHRASES_PER_SKILL }, phrase),
  }),
);

function makePrompt(): string {
  const parts: string[] = [];
  let length = 0;
  while (length < PROMPT_CHARS) {
    const part = rand() < 0.02 ? pick(pick(skills).trigger_phrases) : pick(words);
    parts.push(part);
    length += part.length + 1;
  }
  return parts.join(' ').slice(0, PROMPT_CHARS);
}
const prompts = Array.from({ length: PROMPTS }, makePrompt);

function time<T>(work: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = work();
  return { ms: performance.now() - start, value };
}

// 1. Trigger matching.
const build = time(
  () => new TriggerMatcher(skills.map((s) => ({ skillId: s.id, phrases: s.trigger_phrases }))),
);
const regexes = time(() =>
  skills.flatMap((s) =>
    s.trigger_phrases.map((p) => ({ id: s.id, re: new RegExp(`\\b${p.replace(/ /g, '\\s+')}\\b`, 'i') })),
  ),
);
for (const prompt of prompts.slice(0, 5)) {
  build.value.matchAll(prompt);
  for (const { re } of regexes.value) re.test(prompt);
}
const ours = time(() => prompts.map((prompt) => new Set(build.value.matchAll(prompt).map((m) => m.skillId))));
const theirs = time(() =>
  prompts.map((prompt) => new Set(regexes.value.filter(({ re }) => re.test(prompt)).map(({ id }) => id))),
);
const agree = ours.value.every(
  (set, i) => set.size === theirs.value[i]!.size && [...set].every((id) => theirs.value[i]!.has(id)),
);
if (!agree)
  throw new Error('The matcher and the regular expressions found different skills: the comparison is void.');
const oursPerPrompt = ours.ms / PROMPTS;
const regexPerPrompt = theirs.ms / PROMPTS;

// 2. Fuzzy search with typos.
function typo(text: string): string {
  const chars = [...text];
  const at = 1 + Math.floor(rand() * (chars.length - 2));
  if (rand() < 0.5) chars.splice(at, 1);
  else [chars[at], chars[at + 1]] = [chars[at + 1]!, chars[at]!];
  return chars.join('');
}
const targets = Array.from({ length: QUERIES }, () => pick(skills));
const queries = targets.map((skill) => skill.name.split(' ').slice(0, 2).map(typo).join(' '));
const miniBuild = time(() => new SkillSearchIndex(skills));
const fuseBuild = time(
  () =>
    new Fuse(skills, {
      keys: [{ name: 'name', weight: 3 }, { name: 'tags', weight: 2 }, 'description', 'use_cases'],
      ignoreLocation: true,
    }),
);
const mini = time(() => queries.map((query) => miniBuild.value.search(query, 1)[0]?.id));
const fuse = time(() => queries.map((query) => fuseBuild.value.search(query, { limit: 1 })[0]?.item.id));
const hits = (found: Array<string | undefined>) =>
  found.filter((id, i) => id === targets[i]!.id).length / QUERIES;

// 3. Skills the model loads.
const activation = await measureActivation(skills, prompts);

const results = {
  date: new Date().toISOString(),
  node: process.version,
  triggers: {
    skills: SKILLS,
    phrases: SKILLS * PHRASES_PER_SKILL,
    prompt_chars: PROMPT_CHARS,
    build_ms: build.ms,
    match_ms_per_prompt: oursPerPrompt,
    regex_compile_ms: regexes.ms,
    regex_ms_per_prompt: regexPerPrompt,
    speedup: regexPerPrompt / oursPerPrompt,
    targets: { match_ms_per_prompt: 1, speedup: 50 },
  },
  search: {
    skills: SKILLS,
    queries: QUERIES,
    minisearch: { build_ms: miniBuild.ms, ms_per_query: mini.ms / QUERIES, hit_at_1: hits(mini.value) },
    fuse: { build_ms: fuseBuild.ms, ms_per_query: fuse.ms / QUERIES, hit_at_1: hits(fuse.value) },
  },
  activation,
};
const f = (n: number) => n.toFixed(3);
const table = [
  '# Skill selection at catalog scale',
  '',
  `Measured ${results.date} on Node ${results.node}. Baselines (regular expressions, Fuse.js) run in the same process.`,
  '',
  `## Trigger matching: ${SKILLS} skills × ${PHRASES_PER_SKILL} phrases, ${PROMPT_CHARS}-character prompt`,
  '',
  '| measure | value |',
  '| --- | --- |',
  `| token matcher, per prompt | ${f(oursPerPrompt)} ms (target ≤ 1 ms) |`,
  `| one regex per phrase, per prompt | ${f(regexPerPrompt)} ms |`,
  `| speed-up | ${(regexPerPrompt / oursPerPrompt).toFixed(0)}× (target ≥ 50×) |`,
  `| building the matcher, once | ${f(build.ms)} ms (regexes: ${f(regexes.ms)} ms) |`,
  '',
  `## Fuzzy search: ${SKILLS} skills, ${QUERIES} queries with one typo per word`,
  '',
  '| library | per query | hit@1 | index build |',
  '| --- | --- | --- | --- |',
  `| MiniSearch (used) | ${f(mini.ms / QUERIES)} ms | ${(hits(mini.value) * 100).toFixed(1)}% | ${f(miniBuild.ms)} ms |`,
  `| Fuse.js | ${f(fuse.ms / QUERIES)} ms | ${(hits(fuse.value) * 100).toFixed(1)}% | ${f(fuseBuild.ms)} ms |`,
  '',
  ...activationTable(activation),
].join('\n');
await writeResults('skills', results, table);
