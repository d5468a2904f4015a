/**
 * The error messages of a stale bundle, as RUM reports them. Where the samples come from:
 * BROWSER_FAILURE_MESSAGES holds the browsers' and bundlers' own wordings, each with the source
 * that builds it (Chromium's Blink and V8, WebKit, Gecko, webpack, mini-css-extract-plugin, Vite,
 * Turbopack) and a public report of it where one was found; the capture messages below are the
 * exact `error.message`s of fixtures/captures/<capture>/rum-events.json.gz (the capture generator's
 * Chromium wording), read from the files too; the near misses are other errors' real wordings
 * (fetch() and JSON.parse() failures, Script error., ResizeObserver) and sentences that only
 * quote the words.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import fc from 'fast-check'
import {BROWSER_FAILURE_MESSAGES, browserFailureOf, urlInError} from '../../../src/analysis/rum-errors'
import {ROOT} from '../../helpers/cli'
import {settings} from '../../helpers/hostile'

/** The URL each catalogue example names; an example missing here names none. */
const NAMED_URL = new Map<string, string>([
  ["Refused to execute script from 'http://localhost:5000/mimic.js' because its MIME type ('text/html') is not executable, and strict MIME type checking is enabled.", 'http://localhost:5000/mimic.js'],
  ['Loading module from “https://app.example.com/assets/index-4f9a1c2b.js” was blocked because of a disallowed MIME type (“text/html”).', 'https://app.example.com/assets/index-4f9a1c2b.js'],
  ['Failed to load chunk /_next/static/chunks/0f1e2d3c4b5a6978.js as a runtime dependency of chunk static/chunks/main.js', '/_next/static/chunks/0f1e2d3c4b5a6978.js'],
  ['TypeError: Failed to fetch dynamically imported module: https://app.example.com/assets/Settings-3b2c1d0e.js', 'https://app.example.com/assets/Settings-3b2c1d0e.js'],
  ['TypeError: error loading dynamically imported module: https://www.lotcastingatemi.com/vite/assets/Help-BmAo3IQE.js', 'https://www.lotcastingatemi.com/vite/assets/Help-BmAo3IQE.js'],
  ['ChunkLoadError: Loading chunk 3781 failed.\n(missing: http://localhost:3000/_next/static/chunks/3781-32a3a102dc80bd51.js)', 'http://localhost:3000/_next/static/chunks/3781-32a3a102dc80bd51.js'],
  ['ChunkLoadError: Loading chunk app/layout failed.\n(timeout: http://localhost:3000/_next/static/chunks/app/layout.js)', 'http://localhost:3000/_next/static/chunks/app/layout.js'],
  ['ChunkLoadError: Loading chunk app/(pc-web)/knowledge/charging/[page]/page failed.\n(missing: http://localhost:3000/_next/static/chunks/app/(pc-web)/knowledge/charging/%5Bpage%5D/page.js)',
    'http://localhost:3000/_next/static/chunks/app/(pc-web)/knowledge/charging/%5Bpage%5D/page.js'],
  ['Error: Loading chunk 3 failed.\n(error: https://datafruits.fm/assets/chunk.fcf3bebbdb064138465a.js)', 'https://datafruits.fm/assets/chunk.fcf3bebbdb064138465a.js'],
  ['Error: Uncaught (in promise): Error: Loading chunk 6 failed.\n(missing: http://lms.admissiondesk.org/6-es2015.8c364b8094b352391c69.js)', 'http://lms.admissiondesk.org/6-es2015.8c364b8094b352391c69.js'],
  ['Loading CSS chunk 7 failed.\n(https://app.example.com/static/css/7.3f2a1b4c.chunk.css)', 'https://app.example.com/static/css/7.3f2a1b4c.chunk.css'],
  ['ChunkLoadError: Loading css chunk 7 failed.\n(error: https://app.example.com/7.5e6f7a8b.css)', 'https://app.example.com/7.5e6f7a8b.css'],
  ['Unable to preload CSS for /assets/Settings-4a5b6c7d.css', '/assets/Settings-4a5b6c7d.css'],
  ['Failed to load chunk /_next/static/chunks/0a1b2c3d4e5f6a7b.js from module 43210', '/_next/static/chunks/0a1b2c3d4e5f6a7b.js'],
])

/** The type a reporter names before the words (`Uncaught SyntaxError: …`), as RUM's `error.type` would carry it. */
function typeIn(example: string): string | undefined {
  return /^(?:Uncaught )?(\w*Error): /.exec(example)?.[1]
}

describe('the catalogue of browser failure messages', () => {
  it('has both failures, and every entry says who writes it and where', () => {
    expect(new Set(BROWSER_FAILURE_MESSAGES.map((m) => m.failure))).toEqual(new Set(['crash', 'lazy']))
    for (const m of BROWSER_FAILURE_MESSAGES) {
      expect(m.who).not.toBe('')
      expect(m.source).toMatch(/^(https:\/\/github\.com\/|[\w.-]+\/[\w.-]+ [\w./-]+)/)
    }
    expect(new Set(BROWSER_FAILURE_MESSAGES.map((m) => m.example)).size).toBe(BROWSER_FAILURE_MESSAGES.length)
  })

  it.each(BROWSER_FAILURE_MESSAGES.map((m) => [m.who, m.example, m.failure] as const))('%s: %j is a %s', (_who, example, failure) => {
    expect(browserFailureOf(example)).toBe(failure)
    // With the type RUM gives it (the name before the words, or the generic Error).
    expect(browserFailureOf(example, typeIn(example) ?? 'Error')).toBe(failure)
  })

  it.each(BROWSER_FAILURE_MESSAGES.map((m) => [m.example] as const))('the URL %j names', (example) => {
    expect(urlInError(example)).toBe(NAMED_URL.get(example))
  })

  it('names a URL only for catalogue examples', () => {
    const examples = new Set(BROWSER_FAILURE_MESSAGES.map((m) => m.example))
    expect([...NAMED_URL.keys()].filter((k) => !examples.has(k))).toEqual([])
  })
})

describe('the capture files\' messages', () => {
  // The exact `error.message` and `error.type` of the capture generator's error events.
  const CAPTURED: readonly (readonly [string, string, 'crash' | 'lazy', string | undefined])[] = [
    ["Uncaught SyntaxError: Unexpected token '<'", 'SyntaxError', 'crash', undefined],
    ['Failed to load module script: Expected a JavaScript module script but the server responded with a MIME type of "text/html". Strict MIME type checking is enforced for module scripts per HTML spec.', 'Error', 'crash', undefined],
    ...['index.7ec969b8', 'index.dd4da3e5', 'chunk-ui.89dd6b57', 'chunk-ui.eb39c588'].map((f) => [
      `Failed to load module script: The server responded with a non-JavaScript MIME type of "text/html". (https://webapp.lab.test/_build/${f}.js)`, 'Error', 'crash',
      `https://webapp.lab.test/_build/${f}.js`] as const),
    ...['settings.c61ca041', 'settings.e889d204'].map((f) => [
      `TypeError: Failed to fetch dynamically imported module: https://webapp.lab.test/_build/${f}.js`, 'TypeError', 'lazy', `https://webapp.lab.test/_build/${f}.js`] as const),
  ]

  it.each(CAPTURED)('%j (%s) is a %s naming %s', (message, type, failure, url) => {
    expect(browserFailureOf(message, type)).toBe(failure)
    expect(browserFailureOf(message)).toBe(failure)
    expect(urlInError(message)).toBe(url)
  })

  it('every error event of the captures is one of them', () => {
    const dir = join(ROOT, 'fixtures', 'captures')
    const seen = new Set<string>()
    for (const capture of readdirSync(dir, {withFileTypes: true}).filter((d) => d.isDirectory())) {
      const doc = JSON.parse(gunzipSync(readFileSync(join(dir, capture.name, 'rum-events.json.gz'))).toString('utf8')) as {data: {attributes: {attributes: {error?: {message: string; type?: string}}}}[]}
      for (const e of doc.data) {
        const error = e.attributes.attributes.error
        if (!error) continue
        seen.add(error.message)
        expect([error.message, browserFailureOf(error.message, error.type)]).toEqual([error.message, expect.stringMatching(/^(crash|lazy)$/)])
      }
    }
    expect([...seen].sort()).toEqual(CAPTURED.map(([m]) => m).sort())
  })
})

describe('near misses', () => {
  it.each<[string, string | undefined]>([
    // fetch().json() of an HTML page: an API call answered with the shell, not a script (V8 now, V8 before, Safari, Firefox).
    ['Unexpected token \'<\', "<!DOCTYPE "... is not valid JSON', 'SyntaxError'],
    ['Uncaught (in promise) SyntaxError: Unexpected token \'<\', "<!doctype "... is not valid JSON', undefined],
    ['SyntaxError: Unexpected token < in JSON at position 0', 'SyntaxError'],
    ["SyntaxError: JSON Parse error: Unrecognized token '<'", 'SyntaxError'],
    ['SyntaxError: JSON.parse: unexpected character at line 1 column 1 of the JSON data', 'SyntaxError'],
    // Network failures of fetch/XHR (Chromium, Firefox, Safari), and a 404 of anything.
    ['TypeError: Failed to fetch', 'TypeError'],
    ['TypeError: NetworkError when attempting to fetch resource.', 'TypeError'],
    ['TypeError: Load failed', 'TypeError'],
    ['Failed to load resource: the server responded with a status of 404 (Not Found)', undefined],
    // Firefox's words for a <script> that failed for any reason (offline, blocked, 404).
    ['Loading failed for the <script> with source “https://app.example.com/assets/index.js”.', undefined],
    // Cross-origin scripts' hidden errors, and layout noise.
    ['Script error.', undefined],
    ['ResizeObserver loop limit exceeded', undefined],
    ['ResizeObserver loop completed with undelivered notifications.', undefined],
    // Other parse errors.
    ["Uncaught SyntaxError: Unexpected token 'export'", 'SyntaxError'],
    ["SyntaxError: expected expression, got '.'", 'SyntaxError'],
    // The words quoted in a sentence of someone else's: a wrapper's words are unknown, the sentence may be about anything.
    ['Failed to render dashboard: Loading chunk 5 failed.', undefined],
    ['Retrying after: TypeError: Failed to fetch dynamically imported module: https://app.example.com/a.js', undefined],
    ["Error parsing response: Unexpected token '<'", undefined],
    // The dev server's hot updates, not a deploy.
    ['ChunkLoadError: Loading hot update chunk main failed.\n(missing: http://localhost:8080/main.0a1b2c.hot-update.js)', 'ChunkLoadError'],
    ['Failed to load chunk /_next/static/chunks/a.js from an HMR update', 'ChunkLoadError'],
    // An app's own chunks of data.
    ['Failed to load chunk 3 of the video stream', undefined],
    // A module answered with something else than HTML: a misconfigured server, on every page load.
    ['Failed to load module script: Expected a JavaScript module script but the server responded with a MIME type of "text/plain". Strict MIME type checking is enforced for module scripts per HTML spec.', undefined],
    ['Failed to load module script: Expected a JavaScript-or-Wasm module script but the server responded with a MIME type of "". Strict MIME type checking is enforced for module scripts per HTML spec.', undefined],
    ["TypeError: 'application/octet-stream' is not a valid JavaScript MIME type.", 'TypeError'],
    // A JSON module answered with HTML, and a stylesheet: neither is a script.
    ['Failed to load module script: Expected a JSON module script but the server responded with a MIME type of "text/html". Strict MIME type checking is enforced for module scripts per HTML spec.', undefined],
    ["Refused to apply style from 'https://app.example.com/assets/index.css' because its MIME type ('text/html') is not a supported stylesheet MIME type, and strict MIME checking is enabled.", undefined],
    ['', undefined],
  ])('%j (%s) is no stale-bundle failure', (message, type) => {
    expect(browserFailureOf(message, type)).toBeUndefined()
  })

  it('the words thrown as another kind of error are another error', () => {
    expect(browserFailureOf("Unexpected token '<'", 'TypeError')).toBeUndefined()
    expect(browserFailureOf("TypeError: Unexpected token '<'")).toBeUndefined()
    expect(browserFailureOf('Failed to fetch dynamically imported module: https://a.example/x.js', 'SyntaxError')).toBeUndefined()
    expect(browserFailureOf('Loading chunk 5 failed.', 'RangeError')).toBeUndefined()
    // A type RUM made up, or the generic Error of a wrapper, says nothing.
    expect(browserFailureOf("Unexpected token '<'", 'Error')).toBe('crash')
    expect(browserFailureOf('Loading chunk 5 failed.', 'ChunkLoadError')).toBe('lazy')
    expect(browserFailureOf('Loading chunk 5 failed.', 'UnhandledRejection')).toBe('lazy')
  })

  it('names no URL where there is none', () => {
    for (const m of ['Script error.', 'TypeError: Failed to fetch', 'see (not a url)', 'Loading chunk 5 failed.', 'x (ftp://a.example/b)',
      'Loading chunk 5 failed.\n(undefined: undefined)', 'Failed to load chunk 3 of the video stream']) expect(urlInError(m)).toBeUndefined()
  })
})

describe('untrusted input', () => {
  it('reads only the start of a message', () => {
    const junk = 'x'.repeat(3000)
    expect(browserFailureOf(`${"Uncaught SyntaxError: Unexpected token '<'"}\n${junk}`)).toBe('crash')
    expect(browserFailureOf(`${' '.repeat(2500)}Loading chunk 5 failed.`)).toBeUndefined()
    expect(urlInError(`${junk}Failed to fetch dynamically imported module: https://a.example/x.js`)).toBeUndefined()
  })

  it('stays quick on megabytes built against each pattern', () => {
    const inputs = [
      'Uncaught '.repeat(500_000), '(in promise)'.repeat(400_000), 'Error: '.repeat(700_000), ' '.repeat(5_000_000),
      'Loading chunk '.repeat(400_000), 'chunk x failed.('.repeat(300_000), '(http://'.repeat(600_000), '(https://a'.repeat(500_000),
      `Refused to execute script from '${'a'.repeat(5_000_000)}`, `Loading module from “${'”'.repeat(3_000_000)}`, `Unexpected token '<'${' \t'.repeat(2_000_000)}x`,
    ]
    const started = performance.now()
    for (const s of inputs) {
      browserFailureOf(s, 'Error')
      urlInError(s)
    }
    expect(performance.now() - started).toBeLessThan(1000)
  })
})

describe('properties', () => {
  const examples = fc.constantFrom(...BROWSER_FAILURE_MESSAGES)
  const prefix = fc.constantFrom('', 'Uncaught ', 'Uncaught (in promise) ', 'Uncaught (in promise): ', 'Error: Uncaught (in promise): ')
  const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n  ')
  const tail = fc.constantFrom('', ' ', '\n', '\n    at load (https://app.example.com/assets/index-4f9a1c2b.js:1:2345)')

  it('reporters\' prefixes, surrounding whitespace, a stack or a (URL) tail keep the failure and the URL', () => {
    fc.assert(fc.property(examples, prefix, space, fc.oneof(tail, fc.constant(' (https://app.example.com/assets/x.js)')), (m, p, s, t) => {
      expect(browserFailureOf(`${s}${p}${m.example}${t}`)).toBe(m.failure)
    }), settings(0xe40, 400))
    fc.assert(fc.property(examples, prefix, space, tail, (m, p, s, t) => {
      expect(urlInError(`${s}${p}${m.example}${t}`)).toBe(NAMED_URL.get(m.example))
    }), settings(0xe41, 400))
  })

  it('the words after someone else\'s are not the error', () => {
    fc.assert(fc.property(examples, fc.stringMatching(/^[a-z]{1,12}[ :]$/), (m, word) => {
      expect(browserFailureOf(`${word}${m.example}`)).toBeUndefined()
    }), settings(0xe42, 300))
  })

  it('text without the key phrases is no failure', () => {
    const text = fc.oneof(fc.string({maxLength: 200}), fc.string({unit: 'binary', maxLength: 200}), fc.array(fc.constantFrom(
      'Uncaught ', '(in promise) ', 'TypeError: ', 'Unexpected ', 'token ', '<', "'", 'chunk ', 'failed', 'Loading ', 'module ', 'script ', 'MIME ', 'text/html', '\n', ' ',
    ), {maxLength: 12}).map((xs) => xs.join('')))
    fc.assert(fc.property(text, fc.option(fc.constantFrom('Error', 'TypeError', 'SyntaxError', 'ChunkLoadError'), {nil: undefined}), (s, type) => {
      // The pieces above never spell a whole wording but for `Unexpected token '<'` and `Loading chunk … failed`.
      fc.pre(!/Unexpected token '?<|Loading chunk \S+ failed/.test(s))
      expect(browserFailureOf(s, type)).toBeUndefined()
    }), settings(0xe43, 600))
  })
})
