/**
 * A system error in words for a message: `no such file or directory (ENOENT)` rather than a bare
 * `ENOENT`. Node's message of a failed call is `CODE: words, syscall 'path'`; the words are taken
 * from it (the path is said by the caller, with the flag that named it).
 */
export function errnoWords(error: unknown): string {
  const e = error as {code?: unknown; message?: unknown}
  const code = typeof e?.code === 'string' ? e.code : undefined
  const message = typeof e?.message === 'string' ? e.message : String(error)
  const words = /^[A-Z0-9_]+: (.+?)(?:, [a-z_]+\b.*)?$/s.exec(message)?.[1]
  if (code && words) return `${words} (${code})`
  return code && !message.startsWith(code) ? `${message} (${code})` : message
}

/** A file error of Node (a failed system call), as opposed to an error of the code that called it. */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string'
}
