/** Programmatic API of the fixture generator. */
export {simulate, simulateIter, runSimulation} from './simulate'
export {scenarios, scenarioNames} from './scenarios'
export type {Scenario} from './scenarios'
export {writeScenario, writeSimulation, writerContext} from './write'
export {DEFAULT_PARAMS, resolveParams} from './params'
export {isAssetPath, podTreatsAsAsset} from './paths'
export {DEFAULT_CONTEXT} from './formats/context'
export type {WriterContext} from './formats/context'
export {ingressLine, combinedLine, nginxJsonLine, upstreamFields, requestUri} from './formats/nginx'
export {
  ddEvent,
  ddEventLine,
  ddInnerAttributes,
  ddUnparsedEvent,
  ddUnparsedLine,
  ddV1Log,
  ddV1Document,
  ddPagesDocuments,
} from './formats/datadog'
export {csvCell, csvRow, explorerCsvRow, explorerRawCsvRow, EXPLORER_HEADER, EXPLORER_RAW_HEADER} from './formats/csv'
export {deploysJson, deploysCsv, deployEventsV2, kubectlEvents, deploySteps} from './formats/deploys'
export * from './types'
