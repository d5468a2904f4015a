/** The programmatic API: the same functions the commands call. */
export {analyze, type AnalyzeRequest} from './app/analyze'
export {Analyzer} from './analysis/analyzer'
export {DEFAULT_OPTIONS, type AnalysisOptions} from './analysis/options'
export {DEFAULT_NORMALIZE, type NormalizeOptions} from './normalize/fields'
export {renderTable} from './report/table'
export type * from './model'
export type * from './model/report'
