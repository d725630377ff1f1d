import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'docs/api/**', 'packages/*/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Timers run on an injectable RxJS scheduler (see docs/architecture.md, Conventions).' },
        { name: 'setInterval', message: 'Timers run on an injectable RxJS scheduler (see docs/architecture.md, Conventions).' },
      ],
    },
  },
  {
    files: ['test/**', 'bench/**', 'examples/**', 'src/testing/**', 'packages/*/test/**', 'packages/*/bin/**', 'packages/testkit/src/**'],
    rules: { 'no-restricted-globals': 'off' },
  },
);
