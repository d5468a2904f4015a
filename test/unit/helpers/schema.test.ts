/**
 * The kept schema validators (test/helpers/schema.ts) check what Ajv checks: every test that holds a
 * report to a schema goes through them, so a validator that said yes to everything would let every
 * such test pass.
 */
import {join} from 'node:path'
import {DEFAULT_OPTIONS} from '../../../src/analysis/options'
import {analyze} from '../../../src/app/analyze'
import {DEFAULT_NORMALIZE} from '../../../src/normalize/fields'
import {ROOT} from '../../helpers/cli'
import {schemaValidator} from '../../helpers/schema'

describe('schemaValidator', () => {
  it('passes a real report and fails one with a field of the wrong shape, naming where', async () => {
    const report = await analyze({
      inputs: [join(ROOT, 'fixtures', 'two-deploys', 'ingress.log')], deploysFile: join(ROOT, 'fixtures', 'two-deploys', 'deploys.json'),
      normalize: DEFAULT_NORMALIZE, analysis: DEFAULT_OPTIONS, reorderWindowMs: 60_000, parallel: false,
    })
    const validate = schemaValidator('analyze')
    expect(validate(report) || validate.errors).toBe(true)
    expect(validate({...report, input: {...report.input, first: 'yesterday'}})).toBe(false)
    expect(validate.errors).toEqual(expect.arrayContaining([expect.objectContaining({instancePath: '/input/first'})]))
    expect(validate({...report, totals: undefined})).toBe(false)
  })

  it('a definition by its pointer is a validator of its own', () => {
    const barrage = schemaValidator('probe', '#/definitions/barrage')
    expect(barrage({})).toBe(false)
    expect(barrage).not.toBe(schemaValidator('probe'))
    expect(schemaValidator('probe')).toBe(schemaValidator('probe'))
  })
})
