/** The exit-code contract, documented in docs/exit-codes.md. */
export const EXIT = {
  /** The run completed. */
  OK: 0,
  /** Findings at or above --fail-on. */
  FINDINGS: 1,
  /** Bad flags, bad configuration, unreadable input or a file in no known format. */
  USAGE: 2,
  /** A data source failed while being read. */
  SOURCE: 3,
} as const
