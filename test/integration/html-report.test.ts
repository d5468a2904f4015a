/**
 * The HTML report opened in a real browser (Debian's headless Chromium, installed by .ci/run):
 * the numbers are right, the timeline is drawn, and log text planted with payloads stays text.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {runCli} from '../helpers/cli'
import {tempDir} from '../helpers/temp'

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p))
const dir = tempDir('skewscan-html-')

/** The DOM after load, as Chromium serialises it. */
function dumpDom(file: string): string {
  if (!CHROMIUM) throw new Error('Chromium is not installed: npm test installs Debian\'s chromium package first (scripts/ensure-chromium.sh)')
  const r = spawnSync(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', `--user-data-dir=${mkdtempSync(join(dir, 'profile-'))}`,
    '--virtual-time-budget=2000', '--dump-dom', `file://${file}`,
  ], {encoding: 'utf8', timeout: 60_000})
  if (r.status !== 0) throw new Error(`chromium failed: ${r.stderr}`)
  return r.stdout
}

const line = (ts: string, ip: string, ua: string, path: string, bytes: number, up = '10.1.0.1:8080', referer = 'https://shop.example.com/') =>
  `${ip} - - [29/Nov/2026:${ts} +0000] "GET ${path} HTTP/1.1" 200 ${bytes} "${referer}" "${ua}" 82 0.013 [default-web-80] [] ${up} ${bytes} 0.013 200 0123456789abcdef0123456789abcdef`
const firefox = (v: number) => `Mozilla/5.0 (X11; Linux x86_64; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`
const B = '10.1.1.1:8080'

// Payloads in every place log text reaches the page: user agent, asset path, referer.
const UA = `${firefox(123)} <script>document.title='PWNED'</script><img src=x onerror=document.body.setAttribute('data-pwned','1')>`
const PATH = `/_build/x.js?"><svg/onload=document.body.setAttribute('data-pwned','2')>`

describe('HTML report in headless Chromium', () => {
  it('shows the two-deploy fixture with the right numbers and one shaded band per deploy', () => {
    const out = join(dir, 'two-deploys.html')
    const r = runCli(['analyze', 'fixtures/two-deploys/ingress.log', '--deploys', 'fixtures/two-deploys/deploys.json', '--format', 'html', '--output', out])
    expect(r.status).toBe(0)
    const dom = dumpDom(out)
    // The fixture's truth: 21 people, 17 of 83 page loads crashed; two rollout races, two stale tabs.
    expect(dom).toContain('21 users hit failed assets: 17 page loads of 83 crashed, 2 lost a route to a lazy chunk, 4 loaded unstyled, 1 lost an image or font')
    expect(dom.match(/<svg class="timeline"/g)).toHaveLength(1)
    expect(dom.match(/class="deploy-band"/g)).toHaveLength(2)
    expect(dom.match(/class="incident-mark rollout/g)).toHaveLength(2)
    expect(dom.match(/class="incident-mark stale-client/g)).toHaveLength(2)
    expect(dom).toMatch(/<td>D2<\/td><td>file<\/td>/)
    // Every affected page load (the truth's 24) with its waterfall.
    expect(dom.match(/<table class="waterfall">/g)).toHaveLength(24)
  })

  it('keeps planted <script>, onerror and onload payloads as text: nothing runs, with or without the CSP', () => {
    const log = join(dir, 'payload.log')
    writeFileSync(log, [
      // Two page loads of each build (builds are lengths served more than once), then the victim.
      line('14:00:00', '10.0.0.1', firefox(120), '/', 1832),
      line('14:00:00', '10.0.0.1', firefox(120), '/_build/app.aaaa.js', 50000),
      line('14:00:10', '10.0.0.4', firefox(121), '/', 1832),
      line('14:01:00', '10.0.0.2', firefox(122), '/', 1851, B),
      line('14:01:05', '10.0.0.5', firefox(124), '/', 1851, B),
      line('14:01:00', '10.0.0.3', UA, '/', 1832),
      line('14:01:00', '10.0.0.3', UA, '/_build/app.aaaa.js', 50000),
      line('14:01:00', '10.0.0.3', UA, PATH, 1851, B, `https://x/"><script>document.title='PWNED'</script>`),
    ].join('\n') + '\n')
    const out = join(dir, 'payload.html')
    expect(runCli(['analyze', log, '--format', 'html', '-o', out]).status).toBe(0)
    const unguarded = join(dir, 'payload-no-csp.html')
    writeFileSync(unguarded, readFileSync(out, 'utf8').replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, ''))
    for (const file of [out, unguarded]) {
      const dom = dumpDom(file)
      expect(dom).toContain('<title>skewscan report</title>')
      expect(dom).not.toContain('data-pwned=')
      expect(dom).not.toMatch(/<script/i)
      expect(dom).not.toMatch(/<img/i)
      expect(dom).not.toMatch(/<svg\/onload/i)
      // The payload is there, as text.
      expect(dom).toContain('&lt;script&gt;document.title=\'PWNED\'&lt;/script&gt;&lt;img src=x onerror=')
      expect(dom).toContain('/_build/x.js')
    }
    // The victim is a person with a failure (else the payload would never reach the page).
    expect(readFileSync(out, 'utf8')).toMatch(/1 user hit failed assets/)
  })

  it('has no external fetches: every URL in the page is an in-page anchor', () => {
    const out = join(dir, 'two-deploys.html')
    const html = readFileSync(out, 'utf8')
    expect(html.match(/(?:src|href)="(?!#)[^"]*"/g) ?? []).toEqual([])
    expect(html).toContain('default-src \'none\'')
  })
})
