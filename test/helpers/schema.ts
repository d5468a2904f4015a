/**
 * Validators of the JSON schemas in schemas/, compiled once per schema text and kept: Ajv's
 * compilation of analyze.schema.json took 0.3-0.5 CPU-seconds in each of the dozen test files that
 * checked a report against it. Ajv writes the validator as standalone code (ajv/dist/standalone,
 * with ajv-formats' full formats and allErrors, as the tests compiled it), kept in
 * node_modules/.cache/skewscan-schemas/ under a hash of the schema's text, the pointer, and the
 * versions of Ajv and ajv-formats: a changed schema is compiled again, never checked by an old
 * validator. Written under a temporary name and renamed, so two jest workers may race.
 */
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {ROOT} from './cli'

export type SchemaName = 'analyze' | 'compare' | 'lab' | 'probe'

/** A validator as Ajv makes it: true when valid, else false with the reasons in `errors`. */
export interface Validator {
  (data: unknown): boolean
  errors?: unknown[] | null
}

const CACHE = join(ROOT, 'node_modules', '.cache', 'skewscan-schemas')
/** Bumped when what this file generates changes. */
const GENERATION = 1

const made = new Map<string, Validator>()

/** The validator of schemas/NAME.schema.json, or of the definition at `pointer` in it (`#/definitions/barrage`). */
export function schemaValidator(name: SchemaName, pointer = ''): Validator {
  const key = `${name}${pointer}`
  let v = made.get(key)
  if (v === undefined) made.set(key, (v = load(name, pointer)))
  return v
}

function load(name: SchemaName, pointer: string): Validator {
  const text = readFileSync(join(ROOT, 'schemas', `${name}.schema.json`), 'utf8')
  const versions = ['ajv', 'ajv-formats'].map((p) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', p, 'package.json'), 'utf8')) as {version: string}).version)
  const hash = createHash('sha256').update(JSON.stringify([GENERATION, text, pointer, versions])).digest('hex').slice(0, 16)
  const file = join(CACHE, `${name}-${hash}.js`)
  if (!existsSync(file)) {
    mkdirSync(CACHE, {recursive: true})
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, generate(JSON.parse(text) as {$id?: string}, pointer))
    renameSync(temporary, file)
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(file) as Validator
}

/** Ajv's standalone code of the schema's validator (Ajv is loaded only here, when the cache has none). */
function generate(schema: {$id?: string}, pointer: string): string {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const {default: Ajv, _} = require('ajv') as typeof import('ajv')
  const addFormats = (require('ajv-formats') as {default: typeof import('ajv-formats').default}).default
  const standalone = (require('ajv/dist/standalone') as {default: typeof import('ajv/dist/standalone').default}).default
  /* eslint-enable @typescript-eslint/no-require-imports */
  const ajv = new Ajv({allErrors: true, strict: false, code: {source: true, formats: _`require("ajv-formats/dist/formats").fullFormats`}})
  addFormats(ajv)
  const validate = pointer === '' ? ajv.compile(schema) : (ajv.addSchema(schema), ajv.compile({$ref: `${schema.$id ?? ''}${pointer}`}))
  return standalone(ajv, validate)
}
