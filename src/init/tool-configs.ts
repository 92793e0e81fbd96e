import { readdirSync } from 'node:fs';
import picomatch from 'picomatch';

const TSCONFIG = ['tsconfig*.json'];
const BABEL = ['babel.config.*', '.babelrc', '.babelrc.*'];
const VITE = ['vite.config.*'];

/**
 * The files at the project root each tool reads its settings from, by the
 * names the tool looks for. A check is only as fixed as its configuration:
 * editing `.nycrc` can turn a passing coverage run into a failing one, so
 * the config of every tool a check runs belongs in that check's scope
 * (design: what changes the verdict must change the fingerprint).
 */
export const TOOL_CONFIGS: Readonly<Record<string, readonly string[]>> = {
  eslint: ['.eslintrc', '.eslintrc.*', 'eslint.config.*', '.eslintignore'],
  prettier: ['.prettierrc', '.prettierrc.*', 'prettier.config.*', '.prettierignore'],
  stylelint: ['.stylelintrc', '.stylelintrc.*', 'stylelint.config.*'],
  xo: ['.xo-config', '.xo-config.*', 'xo.config.*'],
  nyc: ['.nycrc', '.nycrc.*', 'nyc.config.*'],
  c8: ['.c8rc', '.c8rc.*'],
  mocha: ['.mocharc', '.mocharc.*'],
  jest: ['jest.config.*', ...BABEL, ...TSCONFIG],
  vitest: ['vitest.config.*', 'vitest.workspace.*', ...VITE, ...TSCONFIG],
  vite: [...VITE, ...TSCONFIG],
  ava: ['ava.config.*'],
  tap: ['.taprc'],
  tsc: TSCONFIG,
  'vue-tsc': TSCONFIG,
  'ts-node': TSCONFIG,
  tsx: TSCONFIG,
  'ts-mocha': ['.mocharc', '.mocharc.*', ...TSCONFIG],
  babel: BABEL,
  'babel-node': BABEL,
  rollup: ['rollup.config.*'],
  webpack: ['webpack.config.*'],
  tsup: ['tsup.config.*', ...TSCONFIG],
  make: ['Makefile', 'makefile', 'GNUmakefile', '*.mk'],
  // npm's own .npmrc is credential-shaped (it may hold a token), so never read.
  yarn: ['.yarnrc', '.yarnrc.yml', '.pnp.cjs'],
  pnpm: ['pnpm-workspace.yaml', '.pnpmfile.cjs'],
  pytest: ['pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini', '.coveragerc'],
};

/** Whether a word names a tool init knows the configuration of. */
export function isTool(word: string): boolean {
  return Object.hasOwn(TOOL_CONFIGS, word);
}

/** The config files of `tools` present at the root of `root`, sorted. */
export function configsOf(root: string, tools: Iterable<string>): string[] {
  const patterns = [...new Set([...tools].flatMap((tool) => TOOL_CONFIGS[tool] ?? []))];
  if (patterns.length === 0) return [];
  const match = picomatch(patterns, { dot: true });
  let names: string[];
  try {
    names = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
  return names.filter((name) => match(name)).sort();
}
