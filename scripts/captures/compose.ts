/**
 * Two apps behind one ingress, made of two captures: the second one moved to another host
 * (`shop.lab.test`), upstream (`default-shop-80`), pods, clients and shell lengths, and shifted in
 * time (deploying a minute after the first), then merged with the first in time order. Every line
 * stays one nginx wrote; only the fields that name the app, its pods, its clients, its shells' length
 * and the time are rewritten.
 */
import type {Capture, NginxJson, Truth} from './capture'

export interface ComposeOptions {
  /** Added to every time of the second capture. */
  offsetMs: number
  /** Added to the length of every shell (and fallback body) of the second capture. */
  lengthShift: number
}

export const SECOND_APP = {host: 'shop.lab.test', upstream: 'default-shop-80', service: 'shop'}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const TIME_LOCAL = /\[(\d\d)\/(\w{3})\/(\d{4}):(\d\d):(\d\d):(\d\d) \+0000\]/
const two = (n: number): string => String(n).padStart(2, '0')

function shiftTimeLocal(text: string, offsetMs: number): string {
  return text.replace(TIME_LOCAL, (_m, d, mon, y, h, mi, s) => {
    const t = new Date(Date.UTC(Number(y), MONTHS.indexOf(mon as string), Number(d), Number(h), Number(mi), Number(s)) + offsetMs)
    return `[${two(t.getUTCDate())}/${MONTHS[t.getUTCMonth()]}/${t.getUTCFullYear()}:${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())} +0000]`
  })
}

const shiftIso = (iso: string, offsetMs: number): string => new Date(Date.parse(iso) + offsetMs).toISOString()

/** Clients 127.10/127.20 -> 127.11/127.21, pods 127.30 -> 127.31, the host and upstream renamed. */
function rename(text: string): string {
  return text.replace(/\b127\.10\./g, '127.11.').replace(/\b127\.20\./g, '127.21.').replace(/\b127\.30\./g, '127.31.')
    .replace(/webapp\.lab\.test/g, SECOND_APP.host).replace(/default-webapp-80/g, SECOND_APP.upstream)
}

export function composeCaptures(first: Capture, second: Capture, o: ComposeOptions): {capture: Capture; truths: Truth[]} {
  const shells = new Set(Object.values(second.truth.builds).map((b) => b.index_html_bytes))
  const shifted = (bytes: number): number => (shells.has(bytes) ? bytes + o.lengthShift : bytes)
  const nginx: NginxJson[] = second.nginx.map((e) => {
    const t = Math.round(e.msec * 1000) + o.offsetMs
    return {
      ...(JSON.parse(rename(JSON.stringify(e))) as NginxJson),
      time_iso8601: new Date(t).toISOString().replace('Z', '+00:00'), msec: Number((t / 1000).toFixed(3)), body_bytes_sent: shifted(e.body_bytes_sent),
    }
  })
  // `... "REQUEST" STATUS BYTES "...`: the body bytes follow the status.
  const bodyBytes = (line: string): string => line.replace(/(" \d{3} )(\d+)( ")/, (_m, a, b, c) => `${a}${shifted(Number(b))}${c}`)
  const lines = (list: readonly string[]): string[] => list.map((l) => bodyBytes(rename(shiftTimeLocal(l, o.offsetMs))))
  const datadog = second.datadog.map((item) => {
    const a = JSON.parse(rename(JSON.stringify(item.attributes))) as Record<string, unknown>
    const inner = a.attributes as {network?: {bytes_written?: number}}
    if (inner.network?.bytes_written !== undefined) inner.network.bytes_written = shifted(inner.network.bytes_written)
    return {...item, id: `shop-${item.id}`, attributes: {
      ...a, timestamp: shiftIso(a.timestamp as string, o.offsetMs), message: typeof a.message === 'string' ? bodyBytes(shiftTimeLocal(a.message, o.offsetMs)) : a.message,
    }}
  })
  const events = second.deploys.datadog_events.data.map((item) => {
    const text = JSON.stringify(item).replace(/webapp/g, SECOND_APP.service)
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, (m) => shiftIso(m, o.offsetMs))
    const e = JSON.parse(text) as {id: string; attributes: {attributes: {timestamp?: number}}}
    if (typeof e.attributes.attributes.timestamp === 'number') e.attributes.attributes.timestamp += o.offsetMs
    return {...e, id: `shop-${e.id}`}
  })
  // The second app's browsers: their addresses, host and service as its logs have them, their sizes of shells shifted, their times moved.
  const rum = second.rum.map((item) => {
    const a = JSON.parse(rename(JSON.stringify(item.attributes)).replace(/webapp/g, SECOND_APP.service)) as Record<string, unknown>
    const inner = a.attributes as {resource?: {size?: number}; view: {id: string}; session: {id: string}; usr?: {id: string}}
    if (inner.resource?.size !== undefined) inner.resource.size = shifted(inner.resource.size)
    // Its own views, sessions and accounts: the two recordings' generator made the same ids.
    inner.view.id = `shop-${inner.view.id}`
    inner.session.id = `shop-${inner.session.id}`
    if (inner.usr) inner.usr.id = `shop-${inner.usr.id}`
    return {...item, id: `shop-${item.id}`, attributes: {...a, timestamp: shiftIso(a.timestamp as string, o.offsetMs)}}
  })
  const truth = shiftTruth(JSON.parse(rename(JSON.stringify(second.truth))) as Truth, o)
  const times = new Map([...first.nginx, ...nginx].map((e) => [e.request_id, e.msec]))
  const byTime = <T>(a: T[], time: (x: T) => number): T[] => a.map((x, i) => ({x, i, t: time(x)})).sort((p, q) => p.t - q.t || p.i - q.i).map((p) => p.x)
  return {
    capture: {
      name: `${first.name}+${second.name}`,
      nginx: byTime([...first.nginx, ...nginx], (e) => e.msec),
      // Combined lines name no app: two apps cannot be told apart in them (not composed).
      combined: [],
      upstreaminfo: byTime([...first.upstreaminfo, ...lines(second.upstreaminfo)], (l) => times.get(l.slice(l.lastIndexOf(' ') + 1)) ?? 0),
      datadog: byTime([...first.datadog, ...datadog], (e) => Date.parse(e.attributes.timestamp as string)),
      deploys: {...first.deploys, datadog_events: {data: [...first.deploys.datadog_events.data, ...events], meta: first.deploys.datadog_events.meta}},
      rum: byTime([...first.rum, ...rum], (e) => Date.parse(e.attributes.timestamp as string)),
      truth: first.truth,
    },
    truths: [first.truth, truth],
  }
}

/** The second capture's truth, shifted in time and with its shells' new lengths. */
function shiftTruth(t: Truth, o: ComposeOptions): Truth {
  return {
    ...t,
    builds: Object.fromEntries(Object.entries(t.builds).map(([k, b]) => [k, {...b, index_html_bytes: b.index_html_bytes + o.lengthShift}])),
    deploys: t.deploys.map((d) => ({...d, start: shiftIso(d.start, o.offsetMs), end: shiftIso(d.end, o.offsetMs)})),
    failure_requests: t.failure_requests.map((f) => ({...f, log_time: shiftIso(f.log_time, o.offsetMs)})),
  }
}
