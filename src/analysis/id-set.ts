/**
 * A set of small integers (page load ids, incident indexes) that is an array while it is small.
 * The analysis keeps two per affected user for the whole run, and nearly every user has one or two
 * entries: a Set for each costs several times the memory of the ids themselves.
 */
export class IdSet {
  private items: number[] | Set<number> = []

  add(id: number): void {
    const items = this.items
    if (!Array.isArray(items)) {
      items.add(id)
    } else if (!items.includes(id)) {
      // concat makes an array of exactly the size needed (push and spread reserve room for 16 more).
      this.items = items.length < 16 ? items.concat(id) : new Set(items.concat(id))
    }
  }

  get size(): number {
    return Array.isArray(this.items) ? this.items.length : this.items.size
  }

  /** The ids, in the order they were first added. */
  values(): number[] {
    return [...this.items]
  }
}
