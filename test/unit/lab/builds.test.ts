import {createHash} from 'node:crypto'
import {chunkMap, makeLabBuilds, ROUTES} from '../../../src/lab/builds'
import {extractAssets} from '../../../src/probe/assets'

describe('the lab\'s builds', () => {
  const builds = makeLabBuilds(4, 7, '2026.11.30')

  it('names every bundle by the hash of its bytes, and no two builds share a bundle', () => {
    const all = new Set<string>()
    for (const b of builds) {
      for (const [path, asset] of b.assets) {
        const hash = /\.([0-9a-f]{8})\.(js|css)$/.exec(path)?.[1]
        expect(createHash('sha256').update(asset.body).digest('hex').slice(0, 8)).toBe(hash)
        expect(all.has(path)).toBe(false)
        all.add(path)
      }
    }
    expect(builds.map((b) => b.version)).toEqual(['2026.11.30-1', '2026.11.30-2', '2026.11.30-3', '2026.11.30-4'])
  })

  it('gives every build a shell of one length, as real bundlers do, shorter than any bundle (so a fallback is never mistaken for one)', () => {
    const shells = builds.map((b) => b.shell.length)
    expect(new Set(shells).size).toBe(1)
    expect(new Set(builds.map((b) => b.shell.toString())).size).toBe(builds.length)
    const smallest = Math.min(...builds.flatMap((b) => [...b.assets.values()].map((a) => a.body.length)))
    expect(Math.max(...shells)).toBeLessThan(smallest)
  })

  it('gives each build a shell of its own length when asked, with the same bundles', () => {
    const distinct = makeLabBuilds(4, 7, '2026.11.30', true)
    expect(new Set(distinct.map((b) => b.shell.length)).size).toBe(builds.length)
    expect(distinct.map((b) => [...b.assets.keys()])).toEqual(builds.map((b) => [...b.assets.keys()]))
  })

  it('has shells that name their entry bundles, and an app bundle that maps routes to lazy chunks', () => {
    for (const b of builds) {
      expect(extractAssets(b.shell.toString(), 'http://127.0.0.1:1/').map((a) => new URL(a.url).pathname)).toEqual(b.entries)
      const app = [...b.assets.values()].find((a) => /\/app\.[0-9a-f]{8}\.js$/.test(a.path))
      expect(chunkMap(app?.body.toString() ?? '')).toEqual(b.chunks)
      for (const r of ROUTES) expect(b.assets.has(b.chunks[r])).toBe(true)
    }
    expect(chunkMap(builds[0]?.shell.toString() ?? '')).toEqual({})
    expect(chunkMap('/*chunks*/{"a":5,"b":"/x.js","c":"http://evil/"}/*end*/')).toEqual({b: '/x.js'})
    expect(chunkMap('/*chunks*/{not json}/*end*/')).toEqual({})
  })

  it('is the same for the same seed', () => {
    const again = makeLabBuilds(4, 7, '2026.11.30')
    expect(again.map((b) => [b.shell.toString(), [...b.assets.keys()]])).toEqual(builds.map((b) => [b.shell.toString(), [...b.assets.keys()]]))
    expect(makeLabBuilds(1, 8, '2026.11.30')[0]?.entries).not.toEqual(builds[0]?.entries)
  })
})
