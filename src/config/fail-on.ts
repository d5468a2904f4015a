import {ConfigError} from '../errors/config-error'
import {type FailRule, MEASURES, type Measure, type Op} from '../report/fail-on'

export {failedRules, type FailRule, measure} from '../report/fail-on'

/** `incident`, `affected-users>10`, `broken-share>=0.05`, …; several separated by commas (any one fails the run). */
export function parseFailOn(spec: string): FailRule[] {
  return spec.split(',').map((part) => part.trim()).filter((p) => p !== '').map((text) => {
    if (text === 'incident') return {text, measure: 'incidents', op: '>', value: 0}
    const m = /^([a-z-]+)\s*(>=|<=|>|<|=)\s*(\d+(?:\.\d+)?)$/.exec(text)
    if (!m || !((m[1] ?? '') in MEASURES)) {
      throw new ConfigError(`--fail-on: "${text}" must be "incident" or MEASURE>N with MEASURE one of ${Object.keys(MEASURES).join(', ')} (e.g. affected-users>10, broken-share>=0.05)`)
    }
    return {text, measure: m[1] as Measure, op: m[2] as Op, value: Number(m[3])}
  })
}
