import {renderPullPlan} from '../../../src/report/pull-plan'
import type {PullEstimate} from '../../../src/model/pull-estimate'

const base: PullEstimate = {held: 200_000, toPull: 4000, slices: 10, unknownSlices: 0, unknownStreams: {}, searchRequests: 24, planningRequests: 13, waitSeconds: null}
const line = (e: Partial<PullEstimate>): string => renderPullPlan({query: 'service:x', from: '2026-12-01T00:00:00.000Z', to: '2026-12-02T00:00:00.000Z', estimate: {...base, ...e}}).split('\n')[1] as string

describe('renderPullPlan: the slices of unknown size are named for what they read', () => {
  it('names each stream that has them, with its count when there are several', () => {
    expect(line({unknownSlices: 7, unknownStreams: {sessions: 3, edges: 4}})).toBe(
      "The pull takes at least 4,000 events (2%) in 10 slices (7 of them, hurt people's own requests (3) and the pods' edges (4), of unknown size): about 24 search requests, after 13 requests to plan it.",
    )
    expect(line({unknownSlices: 3, unknownStreams: {sessions: 3}})).toBe(
      "The pull takes at least 4,000 events (2%) in 10 slices (3 of them, hurt people's own requests, of unknown size): about 24 search requests, after 13 requests to plan it.",
    )
    expect(line({unknownSlices: 2, unknownStreams: {edges: 2}})).toContain("(2 of them, the pods' edges, of unknown size)")
    expect(line({})).toBe('The pull takes 4,000 events (2%) in 10 slices: about 24 search requests, after 13 requests to plan it.')
  })

  it('a stream name is terminal-safe', () => {
    expect(line({unknownSlices: 1, unknownStreams: {'a\u001b[2Jb': 1}})).not.toContain('\u001b')
  })
})
