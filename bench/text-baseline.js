// The bar for text logs: a bare readline pass that parses each line's `combined` fields with one
// regular expression (client, time, request, status, bytes, referer, user agent) and does nothing else.
const {createReadStream} = require('node:fs')
const {createInterface} = require('node:readline')
const COMBINED = /^(\S+) \S+ \S+ \[([^\]]+)\] "([^"]*)" (\d{3}) (\d+|-) "([^"]*)" "([^"]*)"/
;(async () => {
  let n = 0
  let parsed = 0
  const rl = createInterface({input: createReadStream(process.argv[2], {highWaterMark: 1 << 20}), crlfDelay: Infinity})
  for await (const line of rl) if (line) {
    if (COMBINED.exec(line)) parsed++
    n++
  }
  process.stdout.write(`${n} ${parsed}\n`)
})()
