/**
 * The known name closest to a mistyped one, for "did you mean" hints: the one with the fewest edits
 * (insertions, deletions, substitutions, ignoring case), when that is at most half its length; else
 * a known name the mistyped one contains or is contained in (`agentName` → `agent`). Pure: shared by
 * workflow and client code.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  if (best && best.distance <= Math.max(1, Math.floor(best.name.length / 2))) return best.name;
  return known.find((candidate) => {
    const other = candidate.toLowerCase();
    return other.length > 2 && (lower.includes(other) || other.includes(lower));
  });
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
