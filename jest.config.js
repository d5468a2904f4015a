/** @type {import('jest').Config} */
module.exports = {
  // Node, with a TMPDIR of its own per test file that must be empty when the file is done.
  testEnvironment: '<rootDir>/test/tmp-environment.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Builds dist/ when the sources changed: the tests run the CLI as shipped (bin/run.js).
  globalSetup: '<rootDir>/test/global-setup.ts',
  setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
  testTimeout: 30000,
  // Jest's default on two cores is one worker: most suites wait on child processes and sockets, not the CPU.
  maxWorkers: 2,
  transform: {'^.+\\.ts$': ['ts-jest', {tsconfig: 'tsconfig.test.json'}]},
}
