import {RecentIds} from '../../../../src/sources/datadog/puller'
import {v1Filter} from '../../../../src/sources/datadog/deploy-events'

describe('RecentIds (dropping copies from the merged pull)', () => {
  it('drops an id seen within the slack, keeps memory to the slack', () => {
    const ids = new RecentIds(1000)
    expect(ids.seen('a', 0)).toBe(false)
    expect(ids.seen('a', 0)).toBe(true)
    expect(ids.seen('b', 500)).toBe(false)
    expect(ids.seen('a', 900)).toBe(true)
    expect(ids.seen('d', 1500)).toBe(false)
    expect(ids.seen('c', 2000)).toBe(false)
    // 'a' and 'b' are now beyond the slack of the newest time and forgotten; 'd' is not.
    expect(ids.seen('a', 2000)).toBe(false)
    expect(ids.seen('b', 2000)).toBe(false)
    expect(ids.seen('d', 2000)).toBe(true)
  })
})

describe('v1Filter (the v1 events list has no query language)', () => {
  it('maps source: to sources, key:value to tags, and reports the rest', () => {
    expect(v1Filter('source:kubernetes kube_deployment:web kube_namespace:shop')).toEqual({sources: ['kubernetes'], tags: ['kube_deployment:web', 'kube_namespace:shop'], groups: [['kube_deployment:web'], ['kube_namespace:shop']], ignored: []})
    expect(v1Filter('source:(kubernetes OR deployment) kube_deployment:(web OR docs)')).toEqual({sources: ['kubernetes', 'deployment'], tags: ['kube_deployment:web', 'kube_deployment:docs'], groups: [['kube_deployment:web', 'kube_deployment:docs']], ignored: []})
    expect(v1Filter('source:kubernetes AND "Scaled up replica set" -env:dev')).toEqual({sources: ['kubernetes'], tags: [], groups: [], ignored: ['"Scaled up replica set"', '-env:dev']})
  })
})
