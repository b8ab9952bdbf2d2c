import { describe, expect, it } from 'vitest';
import { tokenize, TriggerMatcher } from '../../src/skills/triggers.ts';

function fires(phrase: string, prompt: string): boolean {
  return new TriggerMatcher([{ skillId: 's', phrases: [phrase] }]).match(prompt).length > 0;
}

describe('trigger matching at token boundaries', () => {
  it.each([
    ['implement', 'please implement the parser', true],
    ['implement', 'I implemented the parser', false],
    ['implement', 'we need to re-implement it', true],
    ['implement', 'Implementation notes', false],
    ['git', 'set up git hooks', true],
    ['git', 'open the github page', false],
    ['git', 'a digit is missing', false],
    ['issue', 'file an issue', true],
    ['issue', 'a tissue sample', false],
    ['code review', 'do a CODE   Review, please', true],
    ['code review', 'code and review', false],
  ])('%j in %j → %s', (phrase, prompt, expected) => {
    expect(fires(phrase, prompt)).toBe(expected);
  });

  it('matches full-width text and folds case beyond ASCII (Turkish, German)', () => {
    expect(fires('database schema', 'ＤＡＴＡＢＡＳＥ　ＳＣＨＥＭＡ please')).toBe(true);
    expect(fires('istanbul office', 'İSTANBUL OFFICE')).toBe(true);
    expect(fires('istanbul office', 'ıstanbul office')).toBe(true);
    expect(fires('straße', 'STRASSE')).toBe(true);
    expect(fires('strasse', 'Die Straße')).toBe(true);
  });

  it('matches text written without spaces (CJK) as a sequence of characters', () => {
    expect(fires('数据库', '请帮我设计数据库架构')).toBe(true);
    expect(fires('数据库', '请帮我设计数据架构')).toBe(false);
    expect(fires('データベース', 'このデータベースを設計して')).toBe(true);
  });

  it('treats c++, c# and .net as words of their own', () => {
    expect(fires('c++', 'port this to C++ now')).toBe(true);
    expect(fires('c++', 'write it in C')).toBe(false);
    expect(fires('c', 'port this to C++')).toBe(false);
    expect(fires('c#', 'a C# service')).toBe(true);
    expect(fires('.net', 'upgrade the .NET runtime')).toBe(true);
    expect(tokenize('a+b and c++, done.Then')).toEqual(['a', 'b', 'and', 'c++', 'done', 'then']);
  });

  it('refuses phrases with nothing to match, at build time', () => {
    const matcher = new TriggerMatcher([{ skillId: 's', phrases: ['!!!', 'ok phrase'] }]);
    expect(matcher.refused).toEqual([{ skillId: 's', phrase: '!!!' }]);
  });
});

describe('ranking', () => {
  const matcher = new TriggerMatcher([
    { skillId: 'sql', phrases: ['sql', 'slow sql query'] },
    { skillId: 'db', phrases: ['database schema'] },
    { skillId: 'writer', phrases: ['summary'] },
  ]);

  it('reports each skill once, with its most specific phrase, most specific first', () => {
    const matches = matcher.match(
      'Write a summary of the slow SQL query and the database schema; sql matters',
    );
    expect(matches.map((m) => [m.skillId, m.phrase])).toEqual([
      ['sql', 'slow sql query'],
      ['db', 'database schema'],
      ['writer', 'summary'],
    ]);
  });

  it('finds overlapping phrases in one pass (suffix outputs)', () => {
    const overlapping = new TriggerMatcher([
      { skillId: 'long', phrases: ['a b c d'] },
      { skillId: 'short', phrases: ['b c'] },
      { skillId: 'tail', phrases: ['c d e'] },
    ]);
    expect(overlapping.matchAll('x a b c d e').map((m) => [m.skillId, m.position])).toEqual([
      ['short', 2],
      ['long', 1],
      ['tail', 3],
    ]);
  });
});
