// Type-aware lint rules; `npm test` runs them before the suite.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'src/tools/meta-schema-validator.generated.ts',
      'test/fixtures/**',
      'src/web/assets/**',
      'eslint.config.js',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      // An async function without await still turns a throw into a rejection, which callers rely on.
      '@typescript-eslint/require-await': 'off',
      // Decorators and reflect-metadata hand classes over as `Function`, as TypeScript's own decorator types do.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      // It would strip assertions that carry a phantom type, such as tsyringe's InjectionToken<T>.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // An AbortSignal's reason, or an error caught elsewhere, is passed on as it is.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingUnknown: true, allowThrowingAny: true },
      ],
    },
  },
  {
    // Tests, benchmarks and examples read back JSON they just wrote, reach into fakes, and hand async
    // callbacks to Node's APIs; the code they check is held to the rules above.
    files: ['test/**', 'bench/**', 'examples/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
);
