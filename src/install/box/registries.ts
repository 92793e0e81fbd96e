import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';

/** A package ecosystem whose registry the agent's commands must reach from inside the box. */
export interface Ecosystem {
  readonly name: string;
  /** Hosts for the sandbox's network allow-list. */
  readonly domains: readonly string[];
  /** The client's download cache, under the user's home: writable inside the box, or installs fail on a read-only home. */
  readonly caches: readonly string[];
  /** What marks a project as using it. */
  readonly files: readonly string[];
  /** Programs whose use in a check marks it too. */
  readonly programs: readonly string[];
}

/**
 * The registries the common runners install from. The sandbox's network
 * filter refuses every domain not listed (a headless run cannot ask), so
 * `npm install` inside the box fails unless its registry is here. A
 * registry of your own (.npmrc `registry=`, pip's `index-url`) is not
 * guessed: install prints the line to add.
 */
export const ECOSYSTEMS: readonly Ecosystem[] = [
  {
    name: 'npm',
    domains: ['registry.npmjs.org', 'registry.yarnpkg.com'],
    caches: ['~/.npm', '~/.cache/yarn', '~/.local/share/pnpm'],
    files: ['package.json'],
    programs: ['npm', 'npx', 'yarn', 'pnpm', 'node'],
  },
  {
    name: 'python',
    domains: ['pypi.org', 'files.pythonhosted.org'],
    caches: ['~/.cache/pip', '~/.cache/uv'],
    files: ['pyproject.toml', 'requirements.txt', 'setup.py', 'setup.cfg', 'Pipfile'],
    programs: ['pip', 'pip3', 'python', 'python3', 'pytest', 'uv', 'tox', 'poetry'],
  },
  { name: 'go', domains: ['proxy.golang.org', 'sum.golang.org'], caches: ['~/go/pkg/mod', '~/.cache/go-build'], files: ['go.mod'], programs: ['go'] },
  {
    name: 'cargo',
    domains: ['crates.io', 'static.crates.io', 'index.crates.io'],
    caches: ['~/.cargo/registry', '~/.cargo/git'],
    files: ['Cargo.toml'],
    programs: ['cargo'],
  },
];

/** The ecosystems a workspace uses: by the files at its root, and by the programs its checks run. */
export function ecosystemsOf(root: string | null, programs: readonly string[]): Ecosystem[] {
  const used = new Set(programs.map((program) => basename(program)));
  return ECOSYSTEMS.filter((eco) => eco.programs.some((p) => used.has(p)) || (root !== null && eco.files.some((file) => existsSync(join(root, file)))));
}
