import type {ParseOutcome} from '../model/parse-outcome'
import type {NormalizeOptions} from './fields'
import {claimsJson, logFormatOf, matchesLine, parseLogFormatJson, parseLogFormatLine, type TextLogFormat} from './log-format'
import {claimsMapped, coreMapping, parseMappedJson} from './mapped-json'

/*
 * The formats a user describes on the command line: `--log-format` (an nginx log_format, text or an
 * escape=json template) and `--field` mappings of the core fields (a JSON log by mapping). They are
 * tried before the formats skewscan knows: the user said how their log is written.
 */

/** The format ids they are shown under (a file's format, `parse`). */
export const LOG_FORMAT_ID = 'nginx-log-format'
export const LOG_FORMAT_JSON_ID = 'nginx-log-format-json'
export const MAPPED_JSON_ID = 'mapped-json'

/** The text format `--log-format` gives, if it gives one. */
export function userTextFormat(opts: NormalizeOptions | undefined): TextLogFormat | undefined {
  if (opts?.logFormat === undefined) return undefined
  const f = logFormatOf(opts.logFormat)
  return f.kind === 'text' ? f : undefined
}

/** A text line read by `--log-format`, or undefined when the user gave no text format. */
export function parseUserLine(line: string, opts: NormalizeOptions | undefined): ParseOutcome | undefined {
  const f = userTextFormat(opts)
  return f === undefined ? undefined : parseLogFormatLine(f, line)
}

/** Whether `--log-format` reads this line. */
export function userLineMatches(line: string, opts: NormalizeOptions | undefined): boolean {
  const f = userTextFormat(opts)
  return f !== undefined && matchesLine(f, line)
}

/** The id of the user's JSON format that claims this object, or undefined. */
export function userJsonFormatId(obj: Record<string, unknown>, opts: NormalizeOptions | undefined): string | undefined {
  if (opts === undefined) return undefined
  if (opts.logFormat !== undefined) {
    const f = logFormatOf(opts.logFormat)
    if (f.kind === 'json' && claimsJson(f, obj)) return LOG_FORMAT_JSON_ID
  }
  const m = coreMapping(opts)
  return m !== undefined && claimsMapped(obj, m) ? MAPPED_JSON_ID : undefined
}

/** A JSON record read by the user's format that claims it, or undefined when none does. */
export function parseUserJson(obj: Record<string, unknown>, opts: NormalizeOptions): ParseOutcome | undefined {
  if (opts.logFormat !== undefined) {
    const f = logFormatOf(opts.logFormat)
    if (f.kind === 'json' && claimsJson(f, obj)) return parseLogFormatJson(f, obj)
  }
  const m = coreMapping(opts)
  return m !== undefined && claimsMapped(obj, m) ? parseMappedJson(obj, m) : undefined
}
