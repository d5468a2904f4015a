/**
 * Ctrl-C (SIGINT) and SIGTERM as an AbortSignal: the first one asks the run to stop and clean up
 * (close servers and sockets, print the summary); a second one exits at once with 130.
 * `dispose()` removes the handlers once the run is over.
 */
export function interruptSignal(): {signal: AbortSignal; dispose: () => void} {
  const controller = new AbortController()
  const onSignal = (): void => {
    if (controller.signal.aborted) process.exit(130)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    },
  }
}
