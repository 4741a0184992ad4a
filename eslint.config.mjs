// ESLint flat config: the layering of docs/architecture.md, enforced (`npm run lint`, a stage of `npm test`).
import tsParser from '@typescript-eslint/parser';
import layering from './scripts/eslint/layering.mjs';

export default [
  { ignores: ['dist/**', 'node_modules/**', 'release/**', 'test-results/**', 'device-run/**', 'native/**', 'resources/**'] },
  {
    files: ['electron/**/*.ts', 'renderer/src/**/*.{ts,tsx}'],
    languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    plugins: { layering },
    rules: { 'layering/imports': 'error' },
  },
];
