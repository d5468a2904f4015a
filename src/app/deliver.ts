import {promises as fs} from 'node:fs'
import {join} from 'node:path'
import type {AnalysisReport} from '../model/report'
import {EXTENSIONS, type Format, render, type RenderContext} from '../report/formats'
import type {OutputPlan} from '../report/format-names'
import {InputError} from '../sources/errors'
import {errnoWords} from '../util/errno'
import {writeWhole} from './whole-file'


export interface Delivery {
  /** What goes to stdout (nothing when the reports went to files). */
  stdout: string
  written: string[]
}

/** `2026-11-30T08:00:00.123Z` -> `20261130T080000Z`, for file names that sort by time. */
export function stamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '')
}

/** Renders every requested format and writes it where the plan says. */
export async function deliver(r: AnalysisReport, plan: OutputPlan, ctx: RenderContext): Promise<Delivery> {
  const rendered = plan.formats.map((format) => ({format, text: render(format, r, ctx)}))
  if (plan.outDir) {
    await fs.mkdir(plan.outDir, {recursive: true}).catch((error: unknown) => {
      throw new InputError(`--out-dir ${plan.outDir}: cannot create it: ${errnoWords(error)}`, plan.outDir ?? '')
    })
    return {stdout: '', written: await writeDated(plan.outDir, stamp(ctx.generatedAt), rendered)}
  }
  if (plan.output) {
    await writeOutput(plan.output, rendered.map((x) => x.text).join(''), plan.force === true)
    return {stdout: '', written: [plan.output]}
  }
  return {stdout: rendered.map((x) => x.text).join(''), written: []}
}

/** Names tried for one run's reports in --out-dir before giving up: `-2` … after the bare stamp. */
const MAX_SUFFIX = 1000

/**
 * Every format of one run, in `dir`, under one dated name: `skewscan-<stamp>.<ext>`, or
 * `skewscan-<stamp>-2.<ext>` and so on when a run of the same second (a cron job and a manual run)
 * took the name. Files are created exclusively, so two runs writing at once never replace each
 * other's reports; a run that finds its name taken part-way removes what it wrote and takes the next.
 */
async function writeDated(dir: string, stampText: string, rendered: {format: Format; text: string}[]): Promise<string[]> {
  for (let n = 1; n <= MAX_SUFFIX; n++) {
    const name = `skewscan-${stampText}${n === 1 ? '' : `-${n}`}`
    const written: string[] = []
    let taken = false
    for (const {format, text} of rendered) {
      const path = join(dir, `${name}.${EXTENSIONS[format]}`)
      if (await writeReport(path, text, true, '--out-dir')) written.push(path)
      else {
        taken = true
        break
      }
    }
    if (!taken) return written
    await Promise.all(written.map((p) => fs.rm(p, {force: true})))
  }
  throw new InputError(`--out-dir ${dir}: ${MAX_SUFFIX} reports of this second are there already`, dir)
}

/**
 * `--output`: a report never replaces a file without `--force` (as `export` does not), and is
 * created exclusively then: of two runs writing one name at once, exactly one succeeds.
 */
export async function writeOutput(path: string, text: string, force: boolean): Promise<void> {
  if (!force) await refuseToOverwrite(path)
  if (!(await writeReport(path, text, !force, '--output'))) refused(path)
}

/** A report never replaces a file without `--force` (as `export` does not). */
export async function refuseToOverwrite(path: string): Promise<void> {
  const exists = await fs.lstat(path).then(() => true, () => false)
  if (exists) refused(path)
}

function refused(path: string): never {
  throw new InputError(`${path} exists: give --force to replace it, or another --output`, path)
}

/**
 * Writes a report whole or not at all (see whole-file.ts): a failed write (a full disk) leaves no
 * truncated file. `exclusive`: only a new file, false when the name is taken. `flag` names the
 * option that chose the path, in the error.
 */
export async function writeReport(path: string, text: string, exclusive = false, flag = '--output'): Promise<boolean> {
  try {
    return await writeWhole(path, text, exclusive)
  } catch (error: unknown) {
    throw new InputError(`${flag} ${path}: cannot write the report: ${errnoWords(error)}`, path)
  }
}
