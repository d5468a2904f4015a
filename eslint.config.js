// @ts-check
const js = require('@eslint/js')
const tseslint = require('typescript-eslint')
const LAYERS = require('./layers.json')

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
        patterns: [
          {group: ['@datadog/datadog-api-client/*'], message: 'Take the Datadog client\'s types from sources/datadog/client-types.ts; load it in sources/datadog/client.ts only.'},
          // oclif too comes from one file, which the build bundles (scripts/build-oclif.js): an
          // import of @oclif/core elsewhere would load its ~90 modules again, beside the bundle.
          {group: ['@oclif/core', '@oclif/core/*'], message: 'Import oclif from src/cli/oclif.ts (bundled by scripts/build-oclif.js).'},
        ],
      }],
    },
  },
  {files: ['src/cli/oclif.ts'], rules: {'@typescript-eslint/no-restricted-imports': 'off'}},
  // The dependency direction (layers.json: what each folder of src/ may import from the others):
  // commands -> cli, config, app -> sources, analysis, report -> model. An import that climbs back
  // up fails here, static or a lazy require(); test/unit/architecture.test.ts holds the same map
  // against the resolved imports.
  ...Object.entries(LAYERS).flatMap(([folder, allowed]) => [1, 2, 3].map((depth) => {
    const barred = Object.keys(LAYERS).filter((f) => f !== folder && !allowed.includes(f))
    // A file `depth` folders below src/ reaches a folder of src/ by climbing exactly that many levels.
    const regex = `^(\\.\\./){${depth}}(${barred.join('|')})(/|$)`
    const message = `src/${folder}/ may import only ${allowed.length > 0 ? allowed.join(', ') : 'its own files'} (layers.json: commands -> cli, config, app -> sources, analysis, report -> model)`
    const pure = folder === 'analysis' || folder === 'model'
    return {
      files: [`src/${folder}/${'*/'.repeat(depth - 1)}*.ts`],
      rules: {
        // analysis and model are pure: no I/O, no oclif, no process, no wall clock.
        'no-restricted-imports': ['error', {patterns: [{regex, message}, ...(pure ? [{group: ['node:*', 'fs', 'http', 'https', '@oclif/*'], message: 'analysis/ and model/ are pure: data and the clock come in as arguments'}] : [])]}],
        'no-restricted-syntax': ['error', {selector: `CallExpression[callee.name='require'] > Literal.arguments[value=/${regex.replace(/\//g, '\\/')}/]`, message}],
        ...(pure ? {
          'no-restricted-globals': ['error', 'process', 'fetch'],
          'no-restricted-properties': ['error', {object: 'Date', property: 'now'}],
        } : {}),
      },
    }
  })),
)
