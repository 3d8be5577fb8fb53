import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '.changeset/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: {
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        URL: 'readonly',
        console: 'readonly',
        process: 'readonly',
        queueMicrotask: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      // noUncheckedIndexedAccess types every index read as possibly undefined; after a bounds
      // check an assertion says more than a dead fallback would.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `void | X` return types let callbacks that have nothing to say simply not return.
      '@typescript-eslint/no-invalid-void-type': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='Symbol']",
          message:
            'Use Symbol.for() for cross-package keys; a module-local Symbol() breaks across package copies.',
        },
      ],
    },
  },
  {
    files: ['**/test/**', '**/bench/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `void | X` return types let callbacks that have nothing to say simply not return.
      '@typescript-eslint/no-invalid-void-type': 'off',
      'no-restricted-syntax': 'off',
    },
  },
)
