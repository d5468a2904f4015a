import type {FailureRecord} from '../model/report'
import {terminalSafe} from './sanitize'

const COLUMNS: [string, (f: FailureRecord) => string | number | null | undefined][] = [
  ['time', (f) => f.time], ['app', (f) => f.app], ['cause', (f) => f.cause], ['deploy', (f) => f.deployId], ['incident', (f) => f.incidentId],
  ['reason', (f) => f.reason], ['direction', (f) => f.direction], ['asset', (f) => f.asset], ['phase', (f) => f.phase],
  ['method', (f) => f.method], ['path', (f) => f.path], ['status', (f) => f.status], ['bytes', (f) => f.bytes],
  ['client_ip', (f) => f.clientIp], ['user_agent', (f) => f.userAgent], ['session', (f) => f.session], ['service', (f) => f.service],
  ['page_load', (f) => f.pageLoad.id], ['page_time', (f) => f.pageLoad.time], ['page_path', (f) => f.pageLoad.path],
  ['page_build', (f) => f.pageLoad.build], ['serving_build', (f) => f.servingBuild], ['upstream', (f) => f.upstream],
  ['request_id', (f) => f.requestId], ['source_file', (f) => f.source.file], ['source_line', (f) => f.source.line],
]

/**
 * A cell that a spreadsheet will not run and a terminal will not act on. Text starting with
 * = + - @, their fullwidth forms (＝ ＋ － ＠, which some spreadsheets fold), or a NUL, space, tab,
 * CR or LF (which spreadsheets skip before evaluating; OWASP ASVS 5.3) is prefixed with a quote;
 * control characters and bidirectional overrides are written as `\uXXXX`. Numbers stay numbers.
 */
export function csvCell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'number') return String(v)
  // eslint-disable-next-line no-control-regex
  const formula = /^[=+\-@\u0000 \t\r\n\uff1d\uff0b\uff0d\uff20]/.test(v)
  const safe = terminalSafe(formula ? `'${v}` : v)
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** What RUM saw of each request's page load (`--rum`): columns added when RUM saw any. */
const RUM_COLUMNS: typeof COLUMNS = [
  ['rum_session', (f) => f.rum?.session], ['rum_view', (f) => f.rum?.view], ['rum_join', (f) => f.rum?.join],
  ['rum_crashed', (f) => (f.rum === undefined ? undefined : f.rum.crashed ? 'yes' : 'no')], ['rum_error', (f) => f.rum?.error],
  ['rum_user', (f) => f.rum?.user], ['rum_version', (f) => f.rum?.version],
]

export const CSV_HEADER = `${COLUMNS.map(([name]) => name).join(',')}\r\n`

/** One row per failed request, RFC 4180 (CRLF), formula-looking cells neutralised; the RUM columns after the others when RUM saw a page load. */
export function renderCsv(failures: readonly FailureRecord[]): string {
  const columns = failures.some((f) => f.rum !== undefined) ? [...COLUMNS, ...RUM_COLUMNS] : COLUMNS
  const row = (f: FailureRecord): string => `${columns.map(([, get]) => csvCell(get(f))).join(',')}\r\n`
  return `${columns.map(([name]) => name).join(',')}\r\n${failures.map(row).join('')}`
}
