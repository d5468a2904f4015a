/**
 * The HTML report opened in a real browser (Debian's headless Chromium, installed by .ci/run):
 * the numbers are right, the timeline is drawn, and log text planted with payloads stays text.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {runCli} from '../helpers/cli'

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p))
const dir = mkdtempSync(join(tmpdir(), 'skewscan-html-'))

/** The DOM after load, as Chromium serialises it. */
function dumpDom(file: string): string {
  if (!CHROMIUM) throw new Error('Chromium is not installed: .ci/run installs Debian\'s chromium package (apt-get install chromium)')
  const r = spawnSync(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', `--user-data-dir=${mkdtempSync(join(dir, 'profile-'))}`,
    '--virtual-time-budget=2000', '--dump-dom', `file://${file}`,
  ], {encoding: 'utf8', timeout: 60_000})
  if (r.status !== 0) throw new Error(`chromium failed: ${r.stderr}`)
  return r.stdout
}

const line = (ts: string, ip: string, ua: string, path: string, bytes: number, referer = 'https://shop.example.com/') =>
  `${ip} - - [29/Nov/2026:${ts} +0000] "GET ${path} HTTP/1.1" 200 ${bytes} "${referer}" "${ua}" 82 0.013 [default-web-80] [] 10.1.0.1:8080 ${bytes} 0.013 200 0123456789abcdef0123456789abcdef`

// Payloads in every place log text reaches the page: user agent, asset path, referer.
const UA = `<script>document.title='PWNED'</script><img src=x onerror=document.body.setAttribute('data-pwned','1')>`
const PATH = `/_build/x.js?"><svg/onload=document.body.setAttribute('data-pwned','2')>`

describe('HTML report in headless Chromium', () => {
  it('shows the two-deploy fixture with the right numbers and one shaded band per deploy', () => {
    const out = join(dir, 'two-deploys.html')
    const r = runCli(['analyze', 'fixtures/two-deploys/ingress.log', '--deploys', 'fixtures/two-deploys/deploys.json', '--format', 'html', '--output', out])
    expect(r.status).toBe(0)
    const dom = dumpDom(out)
    expect(dom).toContain('17 users hit broken pages (22 of 93 page loads) in 3 incidents across 2 deploys')
    expect(dom.match(/<svg class="timeline"/g)).toHaveLength(1)
    expect(dom.match(/class="deploy-band"/g)).toHaveLength(2)
    expect(dom.match(/class="incident-mark /g)).toHaveLength(3)
    expect(dom).toMatch(/<td>D2<\/td><td>file<\/td>/)
    // The first affected session of each incident is open, with its waterfall.
    expect(dom.match(/<table class="waterfall">/g)?.length).toBeGreaterThanOrEqual(3)
  })

  it('keeps planted <script>, onerror and onload payloads as text: nothing runs, with or without the CSP', () => {
    const log = join(dir, 'payload.log')
    writeFileSync(log, [
      line('14:00:00', '10.0.0.1', 'Mozilla/5.0 A', '/', 1832),
      line('14:01:00', '10.0.0.2', 'Mozilla/5.0 B', '/', 1851),
      line('14:01:00', '10.0.0.3', UA, '/', 1832),
      line('14:01:00', '10.0.0.3', UA, PATH, 1851, `https://x/"><script>document.title='PWNED'</script>`),
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
  })

  it('has no external fetches: every URL in the page is an in-page anchor', () => {
    const out = join(dir, 'two-deploys.html')
    const html = readFileSync(out, 'utf8')
    expect(html.match(/(?:src|href)="(?!#)[^"]*"/g) ?? []).toEqual([])
    expect(html).toContain('default-src \'none\'')
  })
})
