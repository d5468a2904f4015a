/** An absolute range of log time, as `--from`/`--to`/`--since` resolve to (config/time-range.ts). */
export interface TimeRange {
  /** Epoch ms, inclusive. */
  from: number
  /** Epoch ms, exclusive. */
  to: number
}
