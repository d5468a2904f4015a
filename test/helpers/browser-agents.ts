/**
 * User agents of a day's people, crawlers and scanners, as varied as real traffic's: a day of a busy
 * site holds thousands of distinct browser strings, because browsers, their versions, operating
 * systems, device models and in-app browsers (with the app's own build number) multiply. Common
 * strings dominate (the newest Chrome on Windows), the long tail is what makes thousands.
 *
 * Every browser string here is a person's to src/util/agent-kind.ts (test/unit/browser-agents.test.ts
 * holds it); every crawler string a crawler's. Datadog's user-agent parser fills
 * `http.useragent_details` (os family, browser family, device category): given alongside.
 */

export interface Agent {
  agent: string
  details: {os: {family: string}; browser: {family: string}; device: {category: string}}
}

type Random = () => number

/** Index 0 most often, each next one `decay` times as often: versions of a browser in use. */
function recent(random: Random, n: number, decay = 0.55): number {
  for (let k = 0; k < n - 1; k++) if (random() < 1 - decay) return k
  return n - 1
}

const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
const details = (os: string, browser: string, device: string): Agent['details'] => ({os: {family: os}, browser: {family: browser}, device: {category: device}})

const CHROME_BUILDS: Record<number, number> = {131: 6778, 130: 6723, 129: 6668, 128: 6613, 127: 6533, 126: 6478, 125: 6422, 124: 6367, 123: 6312, 122: 6261, 121: 6167, 120: 6099, 119: 6045, 118: 5993, 117: 5938, 116: 5845, 115: 5790, 114: 5735, 113: 5672, 112: 5615, 111: 5563, 110: 5481, 109: 5414}
const CHROME_MAJORS = Object.keys(CHROME_BUILDS).map(Number).sort((a, b) => b - a)
const chromeFull = (random: Random, major: number): string => `${major}.0.${CHROME_BUILDS[major] ?? 6000}.${Math.floor(random() * 205)}`
const EDGE_BUILDS: Record<number, number> = {131: 2903, 130: 2849, 129: 2792, 128: 2739, 127: 2651, 126: 2592, 125: 2535, 124: 2478, 123: 2420, 122: 2365}
const WINDOWS = 'Windows NT 10.0; Win64; x64'
const MACS = ['Macintosh; Intel Mac OS X 10_15_7']
const LINUXES = ['X11; Linux x86_64', 'X11; Ubuntu; Linux x86_64', 'X11; CrOS x86_64 15917.71.0', 'X11; CrOS x86_64 16002.51.0', 'X11; CrOS x86_64 15633.69.0']
/** iOS releases in use, newest first (the UA writes 18.1.1 as 18_1_1). */
const IOS = ['18_1_1', '18_1', '18_0_1', '18_0', '17_6_1', '17_6', '17_5_1', '17_5', '17_4_1', '17_4', '17_3_1', '17_2_1', '17_1_2', '17_0_3', '16_7_10', '16_7_8', '16_6_1', '16_5', '16_3_1', '15_8_3', '15_7_9', '15_6_1', '14_8_1', '12_5_7']
const IPHONES = ['iPhone17,1', 'iPhone17,3', 'iPhone16,2', 'iPhone16,1', 'iPhone15,4', 'iPhone15,3', 'iPhone15,2', 'iPhone14,5', 'iPhone14,7', 'iPhone14,2', 'iPhone13,2', 'iPhone12,1', 'iPhone12,8', 'iPhone14,6', 'iPhone11,8']
const ANDROID_MODELS = [
  'SM-S928B', 'SM-S921B', 'SM-S918B', 'SM-S911B', 'SM-S901B', 'SM-A556B', 'SM-A546B', 'SM-A536B', 'SM-A346B', 'SM-A256B', 'SM-A155F', 'SM-A145R', 'SM-G991B', 'SM-G998B', 'SM-G781B', 'SM-N986B', 'SM-F946B', 'SM-F731B', 'SM-X710',
  'Pixel 9 Pro', 'Pixel 9', 'Pixel 8a', 'Pixel 8 Pro', 'Pixel 8', 'Pixel 7a', 'Pixel 7', 'Pixel 6a', 'Pixel 6',
  '2201117TY', '23129RAA4G', '2311DRK48G', 'M2101K6G', '23090RA98G', 'CPH2581', 'CPH2451', 'RMX3710', 'V2250', 'moto g54 5G', 'moto g84 5G', 'motorola edge 40', 'ANE-LX1', 'HD1913', 'NE2213', 'XQ-DQ54', 'A142',
]
const ANDROID_BUILDS = ['AP3A.241105.007', 'AP2A.240905.003', 'UP1A.231005.007', 'UQ1A.240205.004', 'TP1A.220624.014', 'SP1A.210812.016', 'RKQ1.211119.001', 'QP1A.190711.020', 'TKQ1.221114.001', 'UKQ1.230924.001']
const ANDROID = ['14', '13', '15', '12', '11', '10']
const FB_VERSIONS = ['491.0.0.38.109', '490.0.0.42.109', '489.0.0.66.81', '488.0.0.57.109', '487.0.0.50.109', '486.0.0.59.109', '485.1.0.45.110', '484.0.0.64.109']
const IG_VERSIONS = ['356.0.0.41.101', '355.0.0.34.91', '354.1.0.39.88', '353.0.0.29.94', '352.0.0.38.100', '351.0.0.37.90', '350.0.0.25.103', '349.0.0.41.94']
/** The manufacturer/brand an Instagram string names for a model. */
function maker(model: string): string {
  if (model.startsWith('SM-')) return 'samsung'
  if (model.startsWith('Pixel')) return 'Google/google'
  if (/^(2\d{3}|M2)/.test(model)) return 'Xiaomi/Redmi'
  if (model.startsWith('CPH')) return 'OPPO'
  if (model.startsWith('RMX')) return 'realme'
  if (model.startsWith('V2')) return 'vivo'
  if (model.startsWith('moto')) return 'motorola'
  if (/^(HD|NE)/.test(model)) return 'OnePlus'
  if (model.startsWith('XQ')) return 'Sony'
  if (model === 'A142') return 'Nothing'
  return 'HUAWEI'
}
const LOCALES = ['en_US', 'en_GB', 'de_DE', 'fr_FR', 'es_ES', 'it_IT', 'nl_NL', 'pt_BR', 'pl_PL', 'sv_SE', 'tr_TR', 'ja_JP']

function desktopChrome(random: Random): Agent {
  const major = CHROME_MAJORS[recent(random, CHROME_MAJORS.length)] as number
  const r = random()
  const os = r < 0.62 ? WINDOWS : r < 0.86 ? pick(random, MACS) : pick(random, LINUXES)
  const family = os === WINDOWS ? 'Windows' : os.startsWith('Mac') ? 'Mac OS X' : os.includes('CrOS') ? 'Chrome OS' : 'Linux'
  const base = `Mozilla/5.0 (${os}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`
  const edge = EDGE_BUILDS[major]
  if (edge !== undefined && family === 'Windows' && random() < 0.3) return {agent: `${base} Edg/${major}.0.${edge}.${Math.floor(random() * 120)}`, details: details(family, 'Edge', 'Desktop')}
  if (random() < 0.04) return {agent: `${base} OPR/${major - 16}.0.${5000 + Math.floor(random() * 500)}.${Math.floor(random() * 100)}`, details: details(family, 'Opera', 'Desktop')}
  return {agent: base, details: details(family, 'Chrome', 'Desktop')}
}

function desktopFirefox(random: Random): Agent {
  const v = 133 - recent(random, 20, 0.5)
  const esr = random() < 0.1 ? 115 : v
  const r = random()
  const os = r < 0.6 ? WINDOWS : r < 0.8 ? 'Macintosh; Intel Mac OS X 10.15' : pick(random, ['X11; Linux x86_64', 'X11; Ubuntu; Linux x86_64', 'X11; Fedora; Linux x86_64'])
  const family = os === WINDOWS ? 'Windows' : os.startsWith('Mac') ? 'Mac OS X' : 'Linux'
  return {agent: `Mozilla/5.0 (${os}; rv:${esr}.0) Gecko/20100101 Firefox/${esr}.0`, details: details(family, 'Firefox', 'Desktop')}
}

function desktopSafari(random: Random): Agent {
  const v = ['18.1.1', '18.1', '18.0.1', '17.6', '17.5', '17.4.1', '17.3.1', '16.6.1', '16.6', '16.5.2', '15.6.1'][recent(random, 11, 0.5)] as string
  return {agent: `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${v} Safari/605.1.15`, details: details('Mac OS X', 'Safari', 'Desktop')}
}

function iosSafari(random: Random): Agent {
  const ios = IOS[recent(random, IOS.length, 0.6)] as string
  const ipad = random() < 0.15
  const version = ios.split('_').slice(0, ios.split('_')[1] === '0' && ios.split('_').length === 2 ? 1 : 2).join('.')
  const device = ipad ? `iPad; CPU OS ${ios} like Mac OS X` : `iPhone; CPU iPhone OS ${ios} like Mac OS X`
  const r = random()
  if (r < 0.12) {
    const major = CHROME_MAJORS[recent(random, 8)] as number
    return {agent: `Mozilla/5.0 (${device}) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/${chromeFull(random, major)} Mobile/15E148 Safari/604.1`, details: details('iOS', 'Chrome Mobile iOS', ipad ? 'Tablet' : 'Mobile')}
  }
  if (r < 0.22) {
    const model = pick(random, IPHONES)
    const scale = model.startsWith('iPhone1') && !model.startsWith('iPhone11') ? '3.00' : '2.00'
    const app = random() < 0.5
      ? `[FBAN/FBIOS;FBAV/${pick(random, FB_VERSIONS)};FBBV/${650_000_000 + Math.floor(random() * 9_000_000)};FBDV/${model};FBMD/iPhone;FBSN/iOS;FBSV/${ios.replace(/_/g, '.')};FBSS/${scale.charAt(0)};FBID/phone;FBLC/${pick(random, LOCALES)};FBOP/5;FBRV/0]`
      : `Instagram ${pick(random, IG_VERSIONS)} (${model}; iOS ${ios}; ${pick(random, LOCALES)}; ${pick(random, LOCALES).slice(0, 2)}; scale=${scale}; 1179x2556; ${600_000_000 + Math.floor(random() * 90_000_000)})`
    return {agent: `Mozilla/5.0 (iPhone; CPU iPhone OS ${ios} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 ${app}`, details: details('iOS', app.startsWith('[FB') ? 'Facebook' : 'Instagram', 'Mobile')}
  }
  if (r < 0.25) return {agent: `Mozilla/5.0 (${device}) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/${133 - recent(random, 6)}.0 Mobile/15E148 Safari/605.1.15`, details: details('iOS', 'Firefox iOS', ipad ? 'Tablet' : 'Mobile')}
  return {agent: `Mozilla/5.0 (${device}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${version} Mobile/15E148 Safari/604.1`, details: details('iOS', 'Mobile Safari', ipad ? 'Tablet' : 'Mobile')}
}

function android(random: Random): Agent {
  const major = CHROME_MAJORS[recent(random, 12)] as number
  const r = random()
  // Chrome itself sends the reduced string (model K, version x.0.0.0): few distinct ones.
  if (r < 0.5) return {agent: `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`, details: details('Android', 'Chrome Mobile', 'Mobile')}
  const version = ANDROID[recent(random, ANDROID.length)] as string
  const model = pick(random, ANDROID_MODELS)
  if (r < 0.72) {
    const samsung = ['26.0', '25.0', '24.0', '23.0', '22.0'][recent(random, 5)] as string
    return {agent: `Mozilla/5.0 (Linux; Android ${version}; SAMSUNG ${model.startsWith('SM-') ? model : 'SM-A546B'}) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/${samsung} Chrome/${major > 125 ? 122 : major}.0.0.0 Mobile Safari/537.36`, details: details('Android', 'Samsung Internet', 'Mobile')}
  }
  // In-app browsers (a WebView, `wv`) send the device, its build and the full Chrome version.
  const build = pick(random, ANDROID_BUILDS)
  const webview = `Mozilla/5.0 (Linux; Android ${version}; ${model} Build/${build}; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/${chromeFull(random, major)} Mobile Safari/537.36`
  if (random() < 0.5) return {agent: `${webview} [FB_IAB/FB4A;FBAV/${pick(random, FB_VERSIONS)};]`, details: details('Android', 'Facebook', 'Mobile')}
  const dpi = pick(random, ['420dpi', '480dpi', '560dpi', '440dpi'])
  return {
    agent: `${webview} Instagram ${pick(random, IG_VERSIONS)} Android (${28 + Number(version) - 9}/${version}; ${dpi}; 1080x2340; ${maker(model)}; ${model}; ${model.toLowerCase().replace(/[^a-z0-9]/g, '')}; qcom; ${pick(random, LOCALES)}; ${650_000_000 + Math.floor(random() * 9_000_000)})`,
    details: details('Android', 'Instagram', 'Mobile'),
  }
}

/** A person's browser, drawn as real traffic's mix: desktop Chrome and mobile Safari first, a long tail of versions, devices and in-app browsers. */
export function browserAgent(random: Random, mobile?: boolean): Agent {
  const r = random()
  if (mobile === true || (mobile === undefined && r < 0.55)) return random() < 0.5 ? iosSafari(random) : android(random)
  const s = random()
  return s < 0.72 ? desktopChrome(random) : s < 0.86 ? desktopSafari(random) : desktopFirefox(random)
}

/** Whether a captured browser string is a phone's or tablet's (a replayed visitor keeps its kind of device). */
export const isMobileAgent = (agent: string): boolean => /Mobile|iPhone|iPad|Android/.test(agent)

/** Real crawlers' strings and the networks they crawl from (first two octets). */
export const CRAWLERS: readonly {agent: string; net: string; browser: string}[] = [
  {agent: 'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', net: '66.249', browser: 'Googlebot'},
  {agent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.69 Safari/537.36', net: '66.249', browser: 'Googlebot'},
  {agent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36', net: '40.77', browser: 'bingbot'},
  {agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)', net: '17.241', browser: 'Applebot'},
  {agent: 'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)', net: '5.255', browser: 'YandexBot'},
  {agent: 'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)', net: '20.191', browser: 'DuckDuckBot'},
  {agent: 'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)', net: '54.36', browser: 'AhrefsBot'},
  {agent: 'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)', net: '185.191', browser: 'SemrushBot'},
  {agent: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', net: '31.13', browser: 'FacebookBot'},
  {agent: 'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)', net: '180.76', browser: 'Baiduspider'},
]

/** Scanners that say what they are (the rest borrow a browser's string). */
export const SCANNER_TOOLS: readonly string[] = [
  'Mozilla/5.0 zgrab/0.x', 'curl/8.5.0', 'python-requests/2.32.3', 'Go-http-client/1.1', 'Mozilla/5.0 (compatible; CensysInspect/1.1; +https://about.censys.io/)',
  'Mozilla/5.0 (compatible; Nuclei - Open-source project (github.com/projectdiscovery/nuclei))', 'masscan/1.3 (https://github.com/robertdavidgraham/masscan)', 'Wget/1.21.4', 'fasthttp', 'l9explore/1.2.2',
]

/** The outdated browser strings scanners like to borrow, besides current ones. */
export const SCANNER_BROWSERS: readonly string[] = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0.3904.108 Safari/537.36',
  'Mozilla/5.0 (Windows NT 6.1; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/74.0.3729.169 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/83.0.4103.116 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.2 Safari/605.1.15',
]
