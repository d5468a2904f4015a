/** Programmatic API of the fixture generator. */
export {simulate, simulateIter, runSimulation} from './simulate'
export {scenarios, scenarioNames} from './scenarios'
export type {Scenario} from './scenarios'
export {writeScenario, writeSimulation, writerContext, writesCombined} from './write'
export {DEFAULT_PARAMS, NAMESPACE, appConfigs, resolveParams} from './params'
export {assetKind, directoryOf, isAssetPath, isDocumentPath, isShellPath, isSourceMap, podTreatsAsAsset} from './paths'
export {agentKind, LAZY_GAP_MS} from './truth'
export {SCANNERS, CRAWLER, SKEWSCAN_PROBE, DYNAMIC_SHELL_BAND} from './catalog'
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
export {deploysJson, deploysCsv, deployEventsV2, deployEventCount, kubectlEvents, deploySteps} from './formats/deploys'
export * from './types'
