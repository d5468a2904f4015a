import {extractAssets} from '../../../src/probe/assets'

const PAGE = 'https://shop.example.com/products/42?ref=mail'
const urls = (html: string, page = PAGE) => extractAssets(html, page).map((a) => `${a.kind} ${a.url}`)

describe('extractAssets', () => {
  it('finds every kind of script and stylesheet reference, in document order', () => {
    const html = `<!doctype html><html><head>
      <link rel="stylesheet" href="/_build/app.1.css">
      <link rel="modulepreload" href="/_build/vendor.2.js">
      <link rel="preload" as="script" href="/_build/preloaded.3.js">
      <link rel="preload" as="style" href="/_build/print.4.css">
      <link rel="preload" as="font" href="/fonts/a.woff2" crossorigin>
      <link rel="icon" href="/favicon.ico">
      <script type="module" src="/_build/app.5.js"></script>
      <script src="/_build/legacy.6.js" nomodule defer></script>
      <script type="text/javascript" src="/_build/classic.7.js"></script>
      <script type="application/json" src="/data.json"></script>
      <script type="importmap">{"imports":{}}</script>
      <script>window.inline = true</script>
    </head><body><script src="/_build/late.8.js"></script></body></html>`
    expect(urls(html)).toEqual([
      'stylesheet https://shop.example.com/_build/app.1.css',
      'modulepreload https://shop.example.com/_build/vendor.2.js',
      'preload https://shop.example.com/_build/preloaded.3.js',
      'preload https://shop.example.com/_build/print.4.css',
      'module https://shop.example.com/_build/app.5.js',
      'script https://shop.example.com/_build/legacy.6.js',
      'script https://shop.example.com/_build/classic.7.js',
      'script https://shop.example.com/_build/late.8.js',
    ])
  })

  it('resolves relative, protocol-relative and absolute URLs against the page; keeps queries, drops fragments', () => {
    const html = `<script src="app.js"></script><script src="../up.js"></script><script src="//cdn.example.net/lib.js?v=3#x"></script>
      <link rel=stylesheet href="https://static.example.org/s.css"><script src="  /spaced.js\n"></script>`
    expect(urls(html)).toEqual([
      'script https://shop.example.com/products/app.js',
      'script https://shop.example.com/up.js',
      'script https://cdn.example.net/lib.js?v=3',
      'stylesheet https://static.example.org/s.css',
      'script https://shop.example.com/spaced.js',
    ])
  })

  it('honours the first <base href> for what follows it', () => {
    const html = `<head><script src="before.js"></script><base href="/app/"><base href="/ignored/">
      <script src="main.js"></script><link rel="stylesheet" href="/abs.css"></head>`
    expect(urls(html)).toEqual([
      'script https://shop.example.com/products/before.js',
      'script https://shop.example.com/app/main.js',
      'stylesheet https://shop.example.com/abs.css',
    ])
    expect(urls('<base href="https://cdn.example.net/v2/"><script src="x.js"></script>')).toEqual(['script https://cdn.example.net/v2/x.js'])
    expect(urls('<base target="_top"><base href="sub/"><script src="x.js"></script>')).toEqual(['script https://shop.example.com/products/sub/x.js'])
  })

  it('matches rel tokens and attribute names case-insensitively, and splits rel on whitespace', () => {
    expect(urls('<LINK REL="Alternate StyleSheet" HREF="/a.css"><SCRIPT SRC="/b.js"></SCRIPT><link rel="preload  modulepreload" href="/c.js">')).toEqual([
      'stylesheet https://shop.example.com/a.css',
      'script https://shop.example.com/b.js',
      'modulepreload https://shop.example.com/c.js',
    ])
  })

  it('leaves out what a browser would not fetch: empty or non-http URLs, markup inside scripts, comments, templates and noscript, SVG scripts', () => {
    const html = `<script src=""></script><script src="data:text/javascript,1"></script><link rel="stylesheet" href="javascript:alert(1)">
      <script>document.write('<script src="/written.js"><\\/script>')</script>
      <!-- <script src="/commented.js"></script> -->
      <template><script src="/template.js"></script></template>
      <noscript><link rel="stylesheet" href="/noscript.css"></noscript>
      <svg><script href="/svg.js"></script><script src="/svg-src.js"></script></svg>
      <script src="/real.js"></script>`
    expect(urls(html)).toEqual(['script https://shop.example.com/real.js'])
  })

  it('lists each URL once', () => {
    expect(urls('<link rel="modulepreload" href="/a.js"><script type="module" src="/a.js"></script><script type="module" src="a.js#frag"></script>', 'https://h/')).toEqual([
      'modulepreload https://h/a.js',
    ])
  })

  it('copes with malformed HTML as a browser does', () => {
    const html = '<html><head><script src=/unquoted.js></script><link rel=stylesheet href=/x.css <script src="/after-broken-tag.js"></script>' +
      '<div><p><script src="/in-unclosed.js"></script><script src="/never-closed.js">'
    expect(urls(html, 'http://127.0.0.1:8080/')).toEqual([
      'script http://127.0.0.1:8080/unquoted.js',
      'stylesheet http://127.0.0.1:8080/x.css',
      'script http://127.0.0.1:8080/in-unclosed.js',
      'script http://127.0.0.1:8080/never-closed.js',
    ])
    expect(urls('')).toEqual([])
    expect(urls('{"not": "html"}')).toEqual([])
    expect(urls('<script src="http://[bad/x.js"></script><script src="/ok.js"></script>')).toEqual(['script https://shop.example.com/ok.js'])
  })
})
