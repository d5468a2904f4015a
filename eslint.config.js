// @ts-check
const js = require('@eslint/js')
const tseslint = require('typescript-eslint')

module.exports = tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'coverage/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {'@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_'}]},
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
    },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    rules: {'@typescript-eslint/no-explicit-any': 'off'},
  },
  {
    // Plain CommonJS scripts: the launchers, the lint config, the benchmark's bare baseline pass.
    files: ['**/*.js'],
    languageOptions: {sourceType: 'commonjs', globals: {require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', console: 'readonly'}},
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  {
    // The Datadog client takes ~2 s to load: only client.ts loads it, lazily (import()). Its types
    // come from client-types.ts: the entry point's would bring 9,000 declaration files into tsc.
    files: ['src/**/*.ts'],
    ignores: ['src/sources/datadog/client.ts', 'src/sources/datadog/client-types.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [{name: '@datadog/datadog-api-client', message: 'Load the Datadog client in sources/datadog/client.ts only (lazily); take its types from sources/datadog/client-types.ts.'}],
        patterns: [{group: ['@datadog/datadog-api-client/*'], message: 'Take the Datadog client\'s types from sources/datadog/client-types.ts; load it in sources/datadog/client.ts only.'}],
      }],
    },
  },
  {
    // analysis and model are pure: no I/O, no process, no wall clock
    files: ['src/analysis/**/*.ts', 'src/model/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {patterns: ['node:*', 'fs', 'http', 'https', '@oclif/*', '../commands/*', '../sources/*']}],
      'no-restricted-globals': ['error', 'process', 'fetch'],
      'no-restricted-properties': ['error', {object: 'Date', property: 'now'}],
    },
  },
)
