// A parsing worker that dies on its first job: the pool must fail the run, not wait for an answer.
const {parentPort} = require('node:worker_threads')
parentPort.on('message', () => {
  throw new Error('this worker was built to fail')
})
