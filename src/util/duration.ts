/** A length of time as a person reads it: `8.4 s`, `12 min 5 s`, `3 h 20 min`. */
export function duration(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds * 10) / 10} s`
  const m = Math.floor(seconds / 60)
  if (m < 120) return `${m} min ${Math.round(seconds - m * 60)} s`
  return `${Math.floor(m / 60)} h ${m % 60} min`
}
