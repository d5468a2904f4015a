/** Edit distance (insertions, deletions, substitutions) between two short strings. */
export function distance(a: string, b: string): number {
  let prev = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = cur
  }
  return prev[b.length] as number
}

/** The candidate closest to `word`, when it is close enough to be what was meant (about a third of it may differ). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const c of candidates) {
    const d = distance(word, c)
    if (d < bestDistance) [best, bestDistance] = [c, d]
  }
  // A prefix of a flag (`--deploy` for `--deploys`, `--out` for `--out-dir`) is always a fair guess.
  const prefixed = candidates.find((c) => c.startsWith(word) || word.startsWith(c))
  if (prefixed !== undefined && bestDistance > 1) return prefixed
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined
}
