// The bar: a bare readline + JSON.parse pass over the file that does nothing else.
const {createReadStream} = require('node:fs')
const {createInterface} = require('node:readline')
;(async () => {
  let n = 0
  const rl = createInterface({input: createReadStream(process.argv[2], {highWaterMark: 1 << 20}), crlfDelay: Infinity})
  for await (const line of rl) if (line) {
    JSON.parse(line)
    n++
  }
  process.stdout.write(`${n}\n`)
})()
