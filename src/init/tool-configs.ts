const TSCONFIG = ['tsconfig*.json'];
const BABEL = ['babel.config.*', '.babelrc', '.babelrc.*'];
const VITE = ['vite.config.*'];

/**
 * The files at the project root each tool reads its settings from, by the
 * names the tool looks for. A check is only as fixed as its configuration:
 * editing `.nycrc` can turn a passing coverage run into a failing one, and a
 * pytest.ini with `addopts = --co` makes pytest collect and exit 0. So the
 * config of every tool a check runs is among its `inputs` (design: what is
 * not in the proof cannot decide the verdict), present or not: a config
 * that appears later counts.
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
  tsd: TSCONFIG,
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
  make: ['GNUmakefile', 'makefile', 'Makefile', '*.mk'],
  // .npmrc is credential-shaped: as an input it is hashed, never shown.
  npm: ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', '.npmrc'],
  yarn: ['package.json', 'yarn.lock', '.yarnrc', '.yarnrc.yml', '.pnp.cjs', '.npmrc'],
  pnpm: ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.pnpmfile.cjs', '.npmrc'],
  // pytest reads the first of these it finds, and every conftest.py on the way to a test.
  pytest: ['pytest.toml', '.pytest.toml', 'pytest.ini', '.pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg', '.coveragerc', '**/conftest.py'],
  go: ['go.mod', 'go.sum', 'go.work', 'go.work.sum', 'vendor/modules.txt'],
  cargo: ['Cargo.toml', 'Cargo.lock', 'rust-toolchain.toml', 'rust-toolchain', '.cargo/config.toml', '.cargo/config'],
};

/** Whether a word names a tool init knows the configuration of. */
export function isTool(word: string): boolean {
  return Object.hasOwn(TOOL_CONFIGS, word);
}

/** The config globs of `tools`, in the order the table gives them, each once: present or not. */
export function configGlobsOf(tools: Iterable<string>): string[] {
  return [...new Set([...tools].flatMap((tool) => TOOL_CONFIGS[tool] ?? []))];
}
