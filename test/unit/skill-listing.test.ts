import { describe, expect, it } from 'vitest';
import { listingEntry, skillListing } from '../../src/skills/listing.ts';
import { SkillSearchIndex } from '../../src/skills/search.ts';
import { createSkill, type Skill } from '../../src/skills/skill.ts';

const many = (count: number): Skill[] =>
  Array.from({ length: count }, (_, i) =>
    createSkill({
      name: `Skill number ${i}`,
      description: `Helps with topic${i} and its ${i % 7 === 0 ? 'invoices' : 'reports'} in detail`,
    }),
  );

describe('the skill listing of the system prompt', () => {
  it('lists every skill, in order, when they fit', async () => {
    const skills = many(3);
    let ranked = false;
    const listing = await skillListing(skills, 8_000, async () => {
      ranked = true;
      return [];
    });
    expect(listing.listed).toEqual(['skill-number-0', 'skill-number-1', 'skill-number-2']);
    expect(listing.omitted).toBe(0);
    expect(listing.text).toContain(
      '- skill-number-1 (Skill number 1): Helps with topic1 and its reports in detail\n',
    );
    expect(ranked).toBe(false);
  });

  it('stays within its budget with 10,000 skills, the most relevant to the prompt first', async () => {
    const skills = many(10_000);
    const index = new SkillSearchIndex(skills);
    const byId = new Map(skills.map((skill) => [skill.id, skill]));
    const ranked = (prompt: string) => async () => index.rank(prompt).map((id) => byId.get(id)!);
    for (const budget of [8_000, 2_000, 500]) {
      const listing = await skillListing(skills, budget, ranked('the topic9876 invoices'));
      expect(listing.text.length).toBeLessThanOrEqual(budget);
      expect(listing.listed.length + listing.omitted).toBe(10_000);
      expect(listing.listed[0]).toBe('skill-number-9876');
      expect(listing.text).toMatch(/\(\d+ more skills are not listed/);
    }
    const full = await skillListing(skills, 8_000, ranked('topic9876 invoices'));
    // After the best match come the other invoice skills (every seventh), then the rest in order.
    expect(full.listed.slice(1, 4).every((id) => Number(id.split('-').at(-1)) % 7 === 0)).toBe(true);
    expect(full.listed.length).toBeGreaterThan(50);
  });

  it('is empty when nothing fits or nothing is available', async () => {
    expect((await skillListing([], 8_000, async () => [])).text).toBe('');
    expect((await skillListing(many(2), 50, async () => [])).text).toBe('');
  });

  it('cuts long descriptions and keeps each entry on one line', () => {
    const skill = createSkill({ name: 'Long', description: `Line one\nline two ${'x'.repeat(400)}` });
    const entry = listingEntry(skill);
    expect(entry).toMatch(/^- long \(Long\): Line one line two x+…\n$/);
    expect(entry.length).toBeLessThan(280);
  });
});
