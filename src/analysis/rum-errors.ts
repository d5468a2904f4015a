/**
 * What a browser's error message says about a stale bundle (Datadog RUM error events): the page's
 * own scripts were answered with HTML or a wrong MIME type (`crash`), or a chunk the page asked for
 * later failed (`lazy`). Every wording matched here is in BROWSER_FAILURE_MESSAGES with the browser
 * or bundler source it comes from; anything else is some other error, and stays out: a false match
 * would count an unrelated error as a deploy failure in an incident review.
 */

/** What a browser error says happened: the page's initial scripts failed (`crash`), or a script/chunk loaded later failed (`lazy`). */
export type BrowserFailure = 'crash' | 'lazy'

/**
 * Only the start of a message is read: messages are untrusted and may be many KB (a wrapped
 * rejection with its stack), and every wording below, URL included, sits at the start.
 */
const HEAD = 2000

/**
 * What reporters put before the browser's words: `Uncaught ` (window.onerror), `(in promise)`
 * (Chrome's console; zone.js writes `Uncaught (in promise): `), and an error's name (`TypeError: `,
 * zone.js's own `Error: `). The name is captured: it tells what kind of error the words are.
 */
const PREFIX = /^(?:Uncaught\b|\(in promise\)|(Error|TypeError|SyntaxError|ChunkLoadError):)[\s:]*/

/** Prefixes peeled at most: zone.js stacks four (`Error: Uncaught (in promise): Error: …`). */
const MAX_PREFIXES = 8

/** Error names that say what an error is; a rule's wording never comes with another of these. Custom or unknown `error.type`s say nothing. */
const NAMED_TYPES = new Set(['AggregateError', 'ChunkLoadError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError'])

interface Rule {
  failure: BrowserFailure
  /** Anchored at the start of the message once its prefixes are off: a sentence that merely quotes the words is not the error. */
  pattern: RegExp
  /** The named types the wording is thrown as (the generic `Error`, and no type, always fit). */
  types: readonly string[]
}

/**
 * A parse error must end at the token: V8 and JavaScriptCore stop there, while the same start with
 * `, "<!DOCTYPE "... is not valid JSON` or ` in JSON at position 0` is `Response.json()` of an HTML
 * page (an API answered with the shell), not a script. A ` (URL)` tail or a stack line may follow.
 */
const TOKEN_END = String.raw`(?=[ \t]*(?:$|\(|\r?\n))`

/** Only an HTML answer is version skew (the server's SPA fallback); `text/plain` or `""` is a misconfigured server, on every page load. */
const HTML = String.raw`text\/html(?:;[^"'”]{0,100})?`

const RULES: readonly Rule[] = [
  // A classic script answered with HTML: the engine parses the page's first `<`.
  {failure: 'crash', types: ['SyntaxError'], pattern: new RegExp(String.raw`^Unexpected token (?:'<'|"<"|<)${TOKEN_END}`)},
  {failure: 'crash', types: ['SyntaxError'], pattern: new RegExp(String.raw`^expected expression, got '<'${TOKEN_END}`)},
  // A module script (or classic one under nosniff) answered with text/html: refused before parsing.
  {failure: 'crash', types: [], pattern: new RegExp(String.raw`^Failed to load module script: (?:Expected a JavaScript(?:-or-Wasm)? module script but the server responded with a MIME type of|The server responded with a non-JavaScript(?:, JSON)?(?:, CSS)? MIME type of) "${HTML}"`)},
  {failure: 'crash', types: [], pattern: new RegExp(String.raw`^Refused to execute script from '[^']{1,1000}' because its MIME type \('${HTML}'\) is not executable`)},
  {failure: 'crash', types: [], pattern: new RegExp(String.raw`^Loading module from [“"][^”"]{1,1000}[”"] was blocked because of a disallowed MIME type \([“"]${HTML}[”"]\)`)},
  // Safari's words name no script: the catalogue's note says why they count as a crash.
  {failure: 'crash', types: ['TypeError'], pattern: new RegExp(String.raw`^'${HTML}' is not a valid JavaScript MIME type`)},
  // Turbopack loading the chunks an entry chunk needs before it runs: the page's own start-up.
  {failure: 'crash', types: ['ChunkLoadError'], pattern: /^Failed to load chunk \S{1,1000} as a runtime dependency of chunk /},
  // import() rejected: each browser's words.
  {failure: 'lazy', types: ['TypeError'], pattern: /^Failed to fetch dynamically imported module\b/},
  {failure: 'lazy', types: ['TypeError'], pattern: /^[Ee]rror loading dynamically imported module\b/},
  {failure: 'lazy', types: ['TypeError'], pattern: /^Importing a module script failed\b/},
  // Bundlers' on-demand chunks (JavaScript, then CSS); `Loading hot update chunk` is the dev server's HMR, not a deploy.
  {failure: 'lazy', types: ['ChunkLoadError'], pattern: /^Loading chunk \S{1,1000} failed\b/},
  {failure: 'lazy', types: ['ChunkLoadError'], pattern: /^Loading (?:CSS|css) chunk \S{1,1000} failed\b/},
  {failure: 'lazy', types: [], pattern: /^Unable to preload CSS for \S/},
  {failure: 'lazy', types: ['ChunkLoadError'], pattern: /^Failed to load chunk \S{1,1000} from module /},
]

/** The failure an error message (and its `error.type`, when RUM gives one) is, or undefined for any other error. */
export function browserFailureOf(message: string, type?: string): BrowserFailure | undefined {
  let rest = message.slice(0, HEAD).trimStart()
  const names: string[] = type === undefined ? [] : [type]
  for (let i = 0; i < MAX_PREFIXES; i++) {
    const m = PREFIX.exec(rest)
    if (!m) break
    if (m[1] !== undefined) names.push(m[1])
    rest = rest.slice(m[0].length)
  }
  for (const rule of RULES) {
    if (!rule.pattern.test(rest)) continue
    // A wording thrown as another kind of error is another error (an app's own TypeError quoting a SyntaxError's words).
    return names.every((n) => !NAMED_TYPES.has(n) || rule.types.includes(n)) ? rule.failure : undefined
  }
  return undefined
}

/** Where each wording names its URL, most specific first. */
const URL_PATTERNS: readonly RegExp[] = [
  /dynamically imported module: (\S+)/,
  /Loading module from [“"]([^”"\s]{1,1000})[”"]/,
  /Refused to execute script from '([^'\s]{1,1000})'/,
  // webpack's `(error: URL)`, `(missing: URL)`, `(timeout: URL)`, mini-css-extract-plugin's `(URL)`.
  // Greedy up to the last `)`: Next.js app-router URLs hold parentheses (`/app/(shop)/page.js`).
  /chunk \S{1,1000} failed\.?\s*\((?:[a-z]+: )?(\S{1,1000})\)/,
  /Unable to preload CSS for (\S+)/,
  /Failed to load chunk (\S+)/,
]

/** The ` (URL)` a reporter adds after the browser's words: it ends the first line (a stack's `(URL:1:2)` frames come after). */
const URL_TAIL = /\((https?:\/\/\S{1,1000})\)[ \t\r]*$/

/** The URL an error message names (Chromium's `Failed to fetch dynamically imported module: URL`, webpack's `(error: URL)`, Firefox's `Loading module from “URL” was blocked…`, the `(URL)` tail some SDKs add), or undefined. */
export function urlInError(message: string): string | undefined {
  const head = message.slice(0, HEAD)
  for (const p of URL_PATTERNS) {
    const url = p.exec(head)?.[1]
    // A URL or a path has a slash; webpack writes `undefined` when it had no src, an app's "chunk 3" is none.
    if (url?.includes('/')) return url
  }
  const newline = head.indexOf('\n')
  return URL_TAIL.exec(newline === -1 ? head : head.slice(0, newline))?.[1]
}

/**
 * The catalogue: each wording as a browser or bundler writes it, who writes it, and where it is
 * written (the source that builds the string, then a public report of it where one was found).
 * Hosts `app.example.com` are placeholders where a source gives only the format; the other URLs
 * are as reported. `repo path` sources are files of the public GitHub repositories.
 */
export const BROWSER_FAILURE_MESSAGES: readonly {example: string; failure: BrowserFailure; who: string; source: string}[] = [
  // ---- crash: a classic script answered with HTML
  {example: "Uncaught SyntaxError: Unexpected token '<'", failure: 'crash', who: 'Chromium (V8, quoted token since ~2019)',
    source: "v8/v8 src/common/message-template.h (UnexpectedToken \"Unexpected token '%'\"); https://github.com/Sybit-Education/Diveni/issues/674"},
  {example: 'Uncaught SyntaxError: Unexpected token <', failure: 'crash', who: 'Chromium (V8, before ~2019)',
    source: 'v8/v8 src/messages.h (UnexpectedToken "Unexpected token %"); https://github.com/osquery/osquery-site/issues/42'},
  {example: "SyntaxError: Unexpected token '<'", failure: 'crash', who: 'Safari (JavaScriptCore)',
    source: "WebKit/WebKit Source/JavaScriptCore/parser/Parser.cpp (printUnexpectedTokenText: \"Unexpected token '\", getToken(), \"'\")"},
  {example: "Uncaught SyntaxError: expected expression, got '<'", failure: 'crash', who: 'Firefox (SpiderMonkey)',
    source: 'mozilla/gecko-dev js/public/friend/ErrorNumbers.msg (JSMSG_UNEXPECTED_TOKEN "expected {0}, got {1}"), js/src/frontend/TokenKind.h (Lt "\'<\'"); https://github.com/JovianX/Service-Hub/issues/190'},
  // ---- crash: a module script answered with text/html
  {example: 'Failed to load module script: Expected a JavaScript module script but the server responded with a MIME type of "text/html". Strict MIME type checking is enforced for module scripts per HTML spec.',
    failure: 'crash', who: 'Chromium (wording reported 2022–2025)',
    source: 'chromium/chromium third_party/blink/renderer/core/loader/modulescript/module_script_fetcher.cc; https://github.com/jekip/naive-ui-admin/issues/118'},
  {example: 'Failed to load module script: Expected a JavaScript-or-Wasm module script but the server responded with a MIME type of "text/html". Strict MIME type checking is enforced for module scripts per HTML spec.',
    failure: 'crash', who: 'Chromium (wording reported from 2025, Wasm module integration)',
    source: 'chromium/chromium third_party/blink/renderer/core/loader/modulescript/module_script_creation_params.h (ModuleType::kJavaScriptOrWasm); https://github.com/swandir/vite-plugin-http2-proxy/issues/7'},
  {example: 'Failed to load module script: The server responded with a non-JavaScript MIME type of "text/html". Strict MIME type checking is enforced for module scripts per HTML spec.',
    failure: 'crash', who: 'Chromium (older wording, reported 2019–2021)',
    source: 'chromium/chromium third_party/blink/renderer/core/loader/modulescript/module_script_fetcher.cc (older revision); https://github.com/phetsims/chipper/issues/929'},
  {example: "Refused to execute script from 'http://localhost:5000/mimic.js' because its MIME type ('text/html') is not executable, and strict MIME type checking is enabled.",
    failure: 'crash', who: 'Chromium (classic script, X-Content-Type-Options: nosniff)',
    source: 'chromium/chromium third_party/blink/renderer/platform/loader/allowed_by_nosniff.cc; https://github.com/morsdyce/mimic/issues/256'},
  {example: 'Loading module from “https://app.example.com/assets/index-4f9a1c2b.js” was blocked because of a disallowed MIME type (“text/html”).',
    failure: 'crash', who: 'Firefox',
    source: 'mozilla/gecko-dev dom/locales/en-US/chrome/security/security.properties (BlockModuleWithWrongMimeType)'},
  // Safari rejects an entry module and an import() that met the shell with these same words, and
  // names no URL. It counts as a crash like the MIME refusals above (which Chromium and Firefox
  // also log for an import(), beside their own import() words), so a Safari import() that met the
  // shell counts as a crash too.
  {example: "TypeError: 'text/html' is not a valid JavaScript MIME type.", failure: 'crash', who: 'Safari (WebKit)',
    source: 'WebKit/WebKit Source/WebCore/bindings/js/ScriptModuleLoader.cpp (notifyFinished); https://github.com/microweber/microweber/issues/1124'},
  {example: 'Failed to load chunk /_next/static/chunks/0f1e2d3c4b5a6978.js as a runtime dependency of chunk static/chunks/main.js', failure: 'crash', who: 'Turbopack (Next.js)',
    source: 'vercel/next.js turbopack/crates/turbopack-ecmascript-runtime/js/src/browser/runtime/base/runtime-base.ts (loadChunkByUrl, SourceType.Runtime)'},
  // ---- lazy: import() rejected
  {example: 'TypeError: Failed to fetch dynamically imported module: https://app.example.com/assets/Settings-3b2c1d0e.js', failure: 'lazy', who: 'Chromium',
    source: 'chromium/chromium third_party/blink/renderer/core/script/dynamic_module_resolver.cc; https://github.com/vitejs/vite/issues/11804'},
  {example: 'TypeError: error loading dynamically imported module: https://www.lotcastingatemi.com/vite/assets/Help-BmAo3IQE.js', failure: 'lazy', who: 'Firefox (with the URL; reported on 131)',
    source: 'mozilla/gecko-dev js/public/friend/ErrorNumbers.msg (JSMSG_DYNAMIC_IMPORT_FAILED "error loading dynamically imported module: {0}"); https://github.com/makzu/lotcastingatemi/issues/159'},
  {example: 'TypeError: error loading dynamically imported module', failure: 'lazy', who: 'Firefox (without the URL; reported on 68)',
    source: 'https://github.com/tensorflow/tensorboard/issues/2536'},
  {example: 'TypeError: Importing a module script failed.', failure: 'lazy', who: 'Safari (WebKit)',
    source: 'WebKit/WebKit Source/WebCore/bindings/js/ScriptModuleLoader.cpp (fetch, notifyFinished)'},
  // ---- lazy: a bundler's on-demand chunk
  {example: 'ChunkLoadError: Loading chunk 3781 failed.\n(missing: http://localhost:3000/_next/static/chunks/3781-32a3a102dc80bd51.js)', failure: 'lazy', who: 'webpack 5 (Next.js)',
    source: 'webpack/webpack lib/web/JsonpChunkLoadingRuntimeModule.js; https://github.com/vercel/next.js/issues/56484'},
  {example: 'ChunkLoadError: Loading chunk app/layout failed.\n(timeout: http://localhost:3000/_next/static/chunks/app/layout.js)', failure: 'lazy', who: 'webpack 5 (Next.js)',
    source: 'webpack/webpack lib/web/JsonpChunkLoadingRuntimeModule.js; https://github.com/vercel/next.js/issues/66526'},
  {example: 'ChunkLoadError: Loading chunk app/(pc-web)/knowledge/charging/[page]/page failed.\n(missing: http://localhost:3000/_next/static/chunks/app/(pc-web)/knowledge/charging/%5Bpage%5D/page.js)',
    failure: 'lazy', who: 'webpack 5 (Next.js app router)', source: 'https://github.com/vercel/next.js/issues/62857'},
  {example: 'Error: Loading chunk 3 failed.\n(error: https://datafruits.fm/assets/chunk.fcf3bebbdb064138465a.js)', failure: 'lazy', who: 'webpack 4 (before the ChunkLoadError name)',
    source: 'https://github.com/embroider-build/ember-auto-import/issues/173'},
  {example: 'Error: Uncaught (in promise): Error: Loading chunk 6 failed.\n(missing: http://lms.admissiondesk.org/6-es2015.8c364b8094b352391c69.js)', failure: 'lazy', who: 'webpack 4 under Angular (zone.js wraps the rejection)',
    source: 'angular/angular packages/zone.js/lib/common/promise.ts; https://github.com/akveo/ngx-admin-bundle-support/issues/23'},
  {example: 'Loading CSS chunk 7 failed.\n(https://app.example.com/static/css/7.3f2a1b4c.chunk.css)', failure: 'lazy', who: 'mini-css-extract-plugin (webpack)',
    source: 'webpack-contrib/mini-css-extract-plugin src/CssLoadingRuntimeModule.js'},
  {example: 'ChunkLoadError: Loading css chunk 7 failed.\n(error: https://app.example.com/7.5e6f7a8b.css)', failure: 'lazy', who: 'webpack 5 (experiments.css)',
    source: 'webpack/webpack lib/css/CssLoadingRuntimeModule.js'},
  {example: 'Unable to preload CSS for /assets/Settings-4a5b6c7d.css', failure: 'lazy', who: 'Vite (preload helper)',
    source: 'vitejs/vite packages/vite/src/node/plugins/importAnalysisBuild.ts (preload)'},
  {example: 'Failed to load chunk /_next/static/chunks/0a1b2c3d4e5f6a7b.js from module 43210', failure: 'lazy', who: 'Turbopack (Next.js)',
    source: 'vercel/next.js turbopack/crates/turbopack-ecmascript-runtime/js/src/browser/runtime/base/runtime-base.ts (loadChunkByUrl, SourceType.Parent)'},
]
