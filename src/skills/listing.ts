import type { Skill } from './skill.ts';

/** The name of the tool that loads a listed skill. */
export const LOAD_SKILL_TOOL = 'load_skill';
/** The name of the tool that reads a file of a skill's folder. */
export const READ_SKILL_FILE_TOOL = 'read_skill_file';

/** Characters of a description shown in the listing; the rest is in the skill itself. */
const DESCRIPTION_CHARS = 250;

const HEADER =
  `## Skills you can load\n\nWhen the task matches a skill below, call ${LOAD_SKILL_TOOL} with its id before you ` +
  `start: it gives you the skill's instructions and the list of its files, which ${READ_SKILL_FILE_TOOL} reads.\n`;

export interface SkillListing {
  /** The listing for the system prompt; empty when no skill fits or none is available. */
  text: string;
  /** Ids listed, in order. */
  listed: string[];
  /** Skills left out to stay within the budget. */
  omitted: number;
}

/** One line of the listing: id, name when it says more than the id, and the description. */
export function listingEntry(skill: Skill): string {
  const title = skill.display_name ?? skill.name;
  const named = title && title !== skill.id ? ` (${title})` : '';
  const oneLine = skill.description.replace(/\s+/g, ' ').trim();
  const description =
    oneLine.length > DESCRIPTION_CHARS ? `${oneLine.slice(0, DESCRIPTION_CHARS - 1).trimEnd()}…` : oneLine;
  return `- ${skill.id}${named}: ${description}\n`;
}

/**
 * The skills a model may load, within `budget` characters (header and footer included). When they
 * all fit they are listed in the given order; when they do not, `rank()` (called only then) gives
 * the most relevant to the prompt (some of `skills`, best first, no repeats), and those come first. The cost follows the budget, not the
 * number of skills: entries are formatted only until the budget is spent.
 */
export async function skillListing(
  skills: readonly Skill[],
  budget: number,
  rank: () => Promise<readonly Skill[]>,
): Promise<SkillListing> {
  const empty: SkillListing = { text: '', listed: [], omitted: skills.length };
  if (skills.length === 0 || budget <= HEADER.length) return empty;
  const all = fill(skills, budget - HEADER.length);
  if (all.count === skills.length) return { text: HEADER + all.text, listed: all.ids, omitted: 0 };

  const ranked = await rank();
  const placed = new Set(ranked.map((skill) => skill.id));
  const rest = function* (): Generator<Skill> {
    yield* ranked;
    for (const skill of skills) if (!placed.has(skill.id)) yield skill;
  };
  const some = fill(rest(), budget - HEADER.length - footer(skills.length).length);
  if (some.count === 0) return empty;
  const omitted = skills.length - some.count;
  return { text: HEADER + some.text + footer(omitted), listed: some.ids, omitted };
}

function footer(omitted: number): string {
  return (
    `(${omitted} more skills are not listed. Call ${LOAD_SKILL_TOOL} with words describing the task ` +
    'instead of an id to be shown the closest ones.)\n'
  );
}

/** Entries in order while they fit in `room` characters. */
function fill(skills: Iterable<Skill>, room: number): { text: string; ids: string[]; count: number } {
  const parts: string[] = [];
  const ids: string[] = [];
  let used = 0;
  for (const skill of skills) {
    const entry = listingEntry(skill);
    if (used + entry.length > room) break;
    parts.push(entry);
    ids.push(skill.id);
    used += entry.length;
  }
  return { text: parts.join(''), ids, count: ids.length };
}
