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
    // The Datadog client takes ~2 s to load: only client.ts loads it, lazily (import()). Elsewhere
    // its types come from its public entry point, never from its private dist/ files.
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [{name: '@datadog/datadog-api-client', allowTypeImports: true, message: 'Load the Datadog client lazily, in sources/datadog/client.ts; import its types with `import type`.'}],
        patterns: [{group: ['@datadog/datadog-api-client/*'], message: 'Import the Datadog client\'s types from its public entry point (`import type {v2} from \'@datadog/datadog-api-client\'`).'}],
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
