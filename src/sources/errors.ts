import {errnoWords} from '../util/errno'

/** The input cannot be read at all: a missing file, a directory, a file in no known format (exit 2). */
export class InputError extends Error {
  constructor(message: string, readonly file: string) {
    super(message)
    this.name = 'InputError'
  }
}

/** A data source failed while being read (exit 3). */
export class SourceError extends Error {
  constructor(message: string, readonly file?: string) {
    super(message)
    this.name = 'SourceError'
  }
}

/**
 * A source went back in time by more than the reorder window allows. The caller re-reads it with
 * the whole source sorted (see spill-sort: newest-first exports, concatenated files).
 */
export class OrderViolation extends Error {
  constructor(readonly file: string) {
    super(`${file} is not in time order`)
    this.name = 'OrderViolation'
  }
}

/**
 * A file changed while it was read: cut short (logrotate's copytruncate) or, for a reader that
 * opens it again, replaced by another file at its path (logrotate's create). What it held past
 * that point was not read: lost input, as a truncated gzip is.
 */
export class FileChanged extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FileChanged'
  }
}

/**
 * A temporary file of the run (the kept copy of standard input, a sort's runs) cannot be made or
 * written: a configuration error (exit 2), not findings, naming TMPDIR and the error in words.
 */
export function temporaryFileError(error: unknown, dir: string, what: string): InputError {
  return new InputError(`TMPDIR ${dir}: cannot write ${what}: ${errnoWords(error)}; set TMPDIR to a writable directory with room`, dir)
}
