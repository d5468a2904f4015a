/**
 * The parts of oclif skewscan runs on, from one module. The build (scripts/build-oclif.js) replaces
 * this file's output, dist/cli/oclif.js, with a bundle of it: a run then loads one file instead of
 * the ~60 modules of @oclif/core and the ~30 of its dependencies, about 60 ms less of a small
 * `analyze` (0.37 CPU-seconds against 0.43: bench/RESULTS.md, Start-up). bin/run.js starts oclif from the
 * same file, so the commands, their flags and errors and the Config that runs them are one copy of
 * oclif. The core plugins (help, autocomplete, version) keep their own @oclif/core: oclif loads a
 * Config of its own copy when one of their commands runs (Config.load of a Config from another).
 */
export * as Args from '@oclif/core/args'
export {Command} from '@oclif/core/command'
export {Plugin} from '@oclif/core/config'
export * as Errors from '@oclif/core/errors'
export {execute} from '@oclif/core/execute'
export * as Flags from '@oclif/core/flags'
export type {Hook} from '@oclif/core/hooks'
