/** The path of a URL or request target: `https://host/a?b#c` -> `/a`, `/a?b` -> `/a`, `https://host` -> `/`. */
export function urlPath(url: string): string {
  let start = 0
  const scheme = url.indexOf('://')
  if (scheme !== -1) {
    const slash = url.indexOf('/', scheme + 3)
    if (slash === -1) return '/'
    start = slash
  }
  let end = url.length
  for (let i = start; i < url.length; i++) {
    const c = url.charCodeAt(i)
    if (c === 63 || c === 35) { // ? or #
      end = i
      break
    }
  }
  return url.slice(start, end) || '/'
}
