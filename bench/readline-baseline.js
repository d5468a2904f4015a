// The memory bar of a line reader: a bare readline pass that counts the file's lines and keeps none.
const {createReadStream} = require('node:fs')
const {createInterface} = require('node:readline')
;(async () => {
  let n = 0
  const rl = createInterface({input: createReadStream(process.argv[2], {highWaterMark: 1 << 20}), crlfDelay: Infinity})
  for await (const line of rl) if (line) n++
  process.stdout.write(`${n}\n`)
})()
