import {cmp} from '../util/compare'

/** Requests, page loads and failures per time bucket and service, for the report's timeline. */
export interface TrafficBucket {
  requests: number
  pageLoads: number
  failures: number
}

/** Sparse: a bucket exists once a request falls in it, so what it keeps follows the records, never the time span. */
export class TrafficHistogram {
  private readonly services = new Map<string, Map<number, TrafficBucket>>()

  constructor(readonly bucketMs: number) {}

  private bucket(service: string, time: number): TrafficBucket {
    let m = this.services.get(service)
    if (!m) this.services.set(service, (m = new Map()))
    const start = Math.floor(time / this.bucketMs) * this.bucketMs
    let b = m.get(start)
    if (!b) m.set(start, (b = {requests: 0, pageLoads: 0, failures: 0}))
    return b
  }

  request(service: string, time: number): void {
    this.bucket(service, time).requests++
  }

  pageLoad(service: string, time: number): void {
    this.bucket(service, time).pageLoads++
  }

  failure(service: string, time: number): void {
    this.bucket(service, time).failures++
  }

  /** Every service's buckets in time order (empty buckets left out). */
  series(): {service: string; buckets: (TrafficBucket & {start: number})[]}[] {
    return [...this.services].sort(([a], [b]) => cmp(a, b)).map(([service, m]) => ({
      service, buckets: [...m].sort(([a], [b]) => a - b).map(([start, b]) => ({start, ...b})),
    }))
  }
}
