/**
 * bench/core-speed.ts: the cores' speeds are told against each other and against the fastest time
 * this machine has shown, so that a run where the host slowed every core says so (figures made up
 * here, in the shape of those measured on 2026-12-06: 190-200 ms at best, 335-347 ms slowed).
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describeCoreSpeeds, machineBest, slowCore} from '../../../bench/core-speed'

describe('core speeds against this machine\'s best', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skewscan-core-speed-'))
  })
  afterEach(() => rmSync(dir, {recursive: true, force: true}))

  it('keeps the fastest time seen, per Node version, and gives it back', () => {
    const file = join(dir, 'out', 'core-reference.json')
    expect(machineBest(undefined, file)).toBeUndefined()
    expect(machineBest([{core: 0, ms: 205}, {core: 1, ms: 198}], file)).toBe(198)
    // Slower now: the best stays.
    expect(machineBest([{core: 0, ms: 347}, {core: 1, ms: 335}], file)).toBe(198)
    expect(machineBest(undefined, file)).toBe(198)
    // Faster: kept.
    expect(machineBest([{core: 0, ms: 191}, {core: 1, ms: 194}], file)).toBe(191)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({key: `node ${process.version}`, ms: 191})
    // Another Node version's best is not this one's.
    writeFileSync(file, JSON.stringify({key: 'node v0.0.1', ms: 10}))
    expect(machineBest([{core: 0, ms: 300}], file)).toBe(300)
  })

  it('calls cores slow when both ran far over the machine\'s best, though they match each other', () => {
    const slowed = [{core: 0, ms: 347}, {core: 1, ms: 335}]
    expect(slowCore(slowed)).toBe(false)
    expect(slowCore(slowed, 194)).toBe(true)
    expect(slowCore([{core: 0, ms: 201}, {core: 1, ms: 198}], 194)).toBe(false)
    expect(slowCore([{core: 0, ms: 201}, {core: 1, ms: 343}], 194)).toBe(true)
    expect(describeCoreSpeeds(slowed, 194)).toBe('core 0 x1.04, core 1 x1.00 (347 ms, 335 ms; x1.79, x1.73 of this machine\'s best, 194 ms)')
    expect(describeCoreSpeeds(slowed)).toBe('core 0 x1.04, core 1 x1.00 (347 ms, 335 ms)')
    expect(describeCoreSpeeds(undefined)).toMatch(/not measured/)
  })
})
