/** Fixed vocabularies of the simulated site: routes, browsers, bots, API endpoints. */

/** SPA routes of the main app (`web`); each has a lazy chunk `/_build/chunk-<route>.<hash>.js`. */
export const ROUTES = ['products', 'account', 'cart'] as const
export type Route = string

/** What differs between the apps of the catalog: their routes (each with a lazy chunk) and API calls. */
export interface AppProfile {
  routes: readonly string[]
  /** A document path of a route (`/products/12` for `products`), from a random number in [1, 250]. */
  routePath: (route: string, n: number) => string
  api: readonly {path: string; query: string; min: number; max: number}[]
}

/** Real-looking browser user agents with distinct versions. */
export const BROWSER_UAS: readonly string[] = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0',
]

export const CRAWLER = {
  ip: '66.249.66.1',
  userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
}

export const SCANNERS: readonly {ip: string; userAgent: string; paths: readonly string[]}[] = [
  {
    ip: '198.18.7.23',
    userAgent: 'python-requests/2.31.0',
    paths: ['/js/app.js', '/static/js/main.js', '/assets/index.js', '/_build/app.js', '/static/js/bundle.js.map', '/assets/app.css'],
  },
  {
    ip: '198.18.41.200',
    userAgent: 'Mozilla/5.0 zgrab/0.x',
    paths: ['/static/js/main.js', '/_build/vendor.js', '/js/jquery.min.js', '/assets/index.css'],
  },
  {
    // A scanner with a browser's user agent (isbot cannot tell it): only its paths give it away.
    ip: '185.220.101.47',
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0.3904.108 Safari/537.36',
    paths: ['/static/js/main.js', '/wp-login.php', '/js/app.js', '/static/css/main.css', '/assets/index.js'],
  },
]

export const PROBE = {ip: '10.0.0.15', userAgent: 'kube-probe/1.29'}

/** The deploy pipeline's runner, polling the site while a rollout runs. */
export const DEPLOY_WATCHER = {ip: '10.0.3.17', userAgent: 'curl/8.5.0'}

export const MONITOR = {ip: '216.144.250.150', userAgent: 'Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)'}

/** skewscan's own probe (`skewscan probe`), run by an SRE around a deploy. */
export const SKEWSCAN_PROBE = {ip: '198.51.100.250', userAgent: 'skewscan-probe/0.1.0'}

/** JSON API endpoints a page of the main app may call, with their response size range. */
export const API_CALLS: readonly {path: string; query: string; min: number; max: number}[] = [
  {path: '/api/products', query: 'page=2', min: 2400, max: 6400},
  {path: '/api/products', query: 'page=1', min: 2400, max: 6400},
  {path: '/api/cart', query: '', min: 180, max: 900},
  {path: '/api/session', query: '', min: 90, max: 240},
]

export const WEB_PROFILE: AppProfile = {
  routes: ROUTES,
  routePath: (route, n) => (route === 'products' ? `/products/${n}` : `/${route}`),
  api: API_CALLS,
}

/** A documentation site (the second app of the two-app scenario). */
export const DOCS_PROFILE: AppProfile = {
  routes: ['guide', 'reference', 'search'],
  routePath: (route, n) => (route === 'search' ? '/search' : `/${route}/${['install', 'config', 'deploy', 'api', 'cli'][n % 5]}`),
  api: [
    {path: '/api/search', query: 'q=rollout', min: 600, max: 5200},
    {path: '/api/versions', query: '', min: 120, max: 480},
  ],
}

/** The profile of app `index` (the main app is the shop, further apps documentation sites). */
export const profileOf = (index: number): AppProfile => (index === 0 ? WEB_PROFILE : DOCS_PROFILE)

export const FAVICON_BYTES = 4286
/** Where a dynamic shell's length stays (a band no other response of the site uses). */
export const DYNAMIC_SHELL_BAND = {lo: 2400, hi: 4100}
export const HEALTHZ_BYTES = 2
/** Body of a pod's 404 page in `missing: '404'` mode. */
export const NOT_FOUND_BYTES = 153
export const BAD_GATEWAY_STATUS = 502
