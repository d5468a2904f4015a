/** @type {import('jest').Config} */
module.exports = {
  // Node, with a TMPDIR of its own per test file that must be empty when the file is done.
  testEnvironment: '<rootDir>/test/tmp-environment.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Builds dist/ when the sources changed: the tests run the CLI as shipped (bin/run.js).
  globalSetup: '<rootDir>/test/global-setup.ts',
  setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
  // The Datadog client's bundles, which src/sources/datadog/client.ts requires beside its built file
  // (dist/vendor/, written by the build above): the sources under test load what the package ships,
  // one file, rather than the client's 6,000 modules (2.1 CPU-seconds in each test file that pulls).
  moduleNameMapper: {'^\\.\\./\\.\\./vendor/(datadog-[a-z0-9-]+\\.js)$': '<rootDir>/dist/vendor/$1'},
  testTimeout: 30000,
  // Jest's default on two cores is one worker: most suites wait on child processes and sockets, not the CPU.
  maxWorkers: 2,
  // How long a worker may take to end once the run is over before jest kills it and says it "failed
  // to exit gracefully" (every full run said it). No test file was found leaving a handle open (23
  // integration files, each looked at 200 ms after its afterAll hooks: nothing but jest's own pipes), and
  // in test/unit/app, which said it in 3 runs of 9, each worker's 'exit' came within 11 ms of the end;
  // the process is gone about 300 ms later on a busy two-core machine, often past jest's 500 ms. A
  // worker truly kept alive is still killed and reported, after 5 s.
  workerGracefulExitTimeout: 5000,
  // TypeScript stripped by SWC (types are checked apart: npm run typecheck, in .ci/run): ts-jest's
  // transpiler cost each worker about 40 ms a module, and from a fresh clone (no cache) every module
  // is compiled again. Set as tsconfig.json compiles for dist/: ES2022 (class fields defined),
  // CommonJS, dynamic import() left to Node (node16 output keeps it: ESM-only packages load).
  transform: {'^.+\\.ts$': ['@swc/jest', {
    jsc: {parser: {syntax: 'typescript'}, target: 'es2022'},
    module: {type: 'commonjs', ignoreDynamic: true},
    sourceMaps: 'inline',
  }]},
}
