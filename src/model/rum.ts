import type {RecordLocation} from './access-event'

/**
 * One Datadog RUM event as skewscan reads it (sources/rum): the view, resource and error events
 * of the Browser SDK, as the RUM events search API returns them (`data[].attributes.attributes`).
 * Optional fields are absent when the event did not carry them (RUM drops the client address when
 * the application is set up to, and `usr` is there only for signed-in users).
 */
export interface RumEvent {
  kind: 'view' | 'resource' | 'error'
  /** Epoch milliseconds, UTC (the event's `timestamp`): for a view, when the page began to load. */
  time: number
  /** The event's own id (`data[].id`), when it has one. */
  id?: string
  session: string
  /** The view (page load or route) the event belongs to: `view.id`. */
  view: string
  /** The view's URL (`view.url`). */
  viewUrl?: string
  /** `view.loading_type` of a view: `initial_load` for a page load, `route_change` for a route the SPA opened itself. */
  loadingType?: string
  /** The page's version (`version`, else the `version:` tag): the build the page had, in the app's own words. */
  version?: string
  service?: string
  application?: string
  /** The signed-in account (`usr.id`). */
  user?: string
  clientIp?: string
  userAgent?: string
  /** A resource event's request. */
  resource?: RumResource
  /** An error event's error. */
  error?: RumError
  location: RecordLocation
}

export interface RumResource {
  url: string
  /** The URL's path, without query or fragment (as access logs name it). */
  path: string
  /** `resource.type`: `js`, `css`, `document`, `fetch`, … */
  type?: string
  status?: number
  size?: number
}

export interface RumError {
  message: string
  /** `error.source`: `source`, `network`, `console`, … */
  source?: string
  /** `error.type`: `SyntaxError`, `TypeError`, `ChunkLoadError`, … */
  type?: string
  /** The URL the error names (`error.resource.url`, or the one in its message), when there is one. */
  url?: string
  /** That URL's path. */
  path?: string
}
