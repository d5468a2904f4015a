/** `1 record`, `2 records`; `many` for irregular plurals. */
export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`

/** `1,234 events`: the count grouped by thousands, then the word. */
export const pluralCount = (n: number, word: string, many = `${word}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`
