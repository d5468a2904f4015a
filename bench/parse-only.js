// skewscan's own reading of a file on one core, without the analysis: the file cut into the ranges a
// run cuts (1 MiB), each parsed and packed for the analysis as a worker does (the default field
// mapping), and nothing else. What `analyze` costs beyond this is the analysis and the hand-off.
// Needs the build (dist/).
const {statSync} = require('node:fs')
const {join} = require('node:path')
const dist = join(__dirname, '..', 'dist')
const {byteRanges, parseLineRange} = require(join(dist, 'sources', 'file', 'line-range.js'))
const {DEFAULT_NORMALIZE} = require(join(dist, 'normalize', 'fields.js'))
const {DEFAULT_CHUNK_BYTES} = require(join(dist, 'sources', 'parallel', 'options.js'))
const path = process.argv[2]
let lines = 0
for (const range of byteRanges(path, statSync(path).size, DEFAULT_CHUNK_BYTES)) lines += parseLineRange(range, DEFAULT_NORMALIZE).lines
process.stdout.write(`${lines}\n`)
