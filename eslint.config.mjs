import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';

/**
 * The layers of docs/architecture.md, top first, with the files of each. A file may import its own
 * layer and those below it, never one above: the boundaries rule below is derived from this list.
 */
const layers = [
  { layer: 'main', files: ['src/main.ts'] },
  { layer: 'server', files: ['src/server/**'] },
  { layer: 'http, graphql', files: ['src/http/**', 'src/graphql/**'] },
  { layer: 'fast paths', files: ['src/fast-paths/**'] },
  { layer: 'modules', files: ['src/modules/**'] },
  { layer: 'operations, indexer', files: ['src/operations/**', 'src/indexer/**'] },
  { layer: 'chain', files: ['src/chain/**'] },
  { layer: 'jobs, db', files: ['src/jobs/**', 'src/db/**', 'src/generated/**'] },
  { layer: 'embedded', files: ['src/embedded/**'] },
  { layer: 'basics', files: ['src/*.ts', 'src/config/**'] },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      '**/dist',
      '.data',
      'src/generated',
      'packages/client/src/generated',
      'coverage',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      // The imports of src/ name their .ts files without the extension.
      'import/resolver': { node: { extensions: ['.ts', '.js', '.json'] } },
      'boundaries/files': layers.flatMap(({ layer, files }) =>
        files.map((pattern) => ({ category: layer, pattern })),
      ),
      // A file is in the first layer that lists it: src/main.ts is not one of the basics (src/*.ts).
      'boundaries/files-single-match': true,
    },
    rules: {
      // A file a reader can hold in mind; the built ABIs are generated (turned off below).
      'max-lines': ['error', { max: 500 }],
      'boundaries/no-unknown-files': 'error',
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: layers.slice(1).map(({ layer }, i) => ({
            from: { file: { categories: layer } },
            disallow: { to: { file: { categories: layers.slice(0, i + 1).map((above) => above.layer) } } },
            message: `the ${layer} layer imports from {{to.file.categories.[0]}}, a layer above it (docs/architecture.md#layers)`,
          })),
        },
      ],
    },
  },
  {
    files: ['src/chain/contracts/build/**'],
    rules: { 'max-lines': 'off' },
  },
  {
    // The client package is installed without the server: it imports nothing outside itself.
    files: ['packages/client/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../../*', '../../../*', '../../../../*'],
              message:
                'the client package imports nothing outside packages/client (generated copies live in its src/generated)',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        module: 'writable',
        require: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  {
    // CommonJS: jest's configuration and the files it loads by path.
    files: ['**/*.cjs', '**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
