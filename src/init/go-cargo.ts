import type { Project } from './project.js';
import type { Proposal } from './proposal.js';
import { configGlobsOf } from './tool-configs.js';

/**
 * `go test` and `go vet` from go.mod; `_test.go` files and testdata/ are
 * tests; go.mod, go.sum, go.work and vendor/modules.txt, present or not,
 * are inputs (they decide which code the build uses).
 */
export function fromGo(project: Project): Proposal[] {
  if (!project.has('go.mod')) return [];
  const sources = ['**/*.go'];
  const tests = ['**/*_test.go', '**/testdata/**'];
  const inputs = configGlobsOf(['go']);
  const exclude = ['vendor/**'];
  return [
    {
      id: 'tests',
      family: 'go',
      run: ['go', 'test', './...'],
      sources,
      tests,
      inputs,
      exclude,
      block: true,
      timeout: 600,
      proves: '`go test ./...` passes on the declared Go files.',
      from: 'go.mod',
    },
    {
      id: 'vet',
      family: 'go',
      run: ['go', 'vet', './...'],
      sources,
      tests,
      inputs,
      exclude,
      block: true,
      timeout: 300,
      proves: '`go vet ./...` reports nothing.',
      from: 'go.mod',
    },
  ];
}

/**
 * `cargo test` from Cargo.toml: the crate's Rust files and its members'
 * manifests; tests/ and benches/ are tests; the root manifest, lockfile,
 * toolchain file and .cargo/config, present or not, are inputs.
 */
export function fromCargo(project: Project): Proposal[] {
  if (!project.has('Cargo.toml')) return [];
  return [
    {
      id: 'tests',
      family: 'cargo',
      run: ['cargo', 'test'],
      sources: ['**/*.rs', ...(project.files.some((path) => path !== 'Cargo.toml' && path.endsWith('/Cargo.toml')) ? ['**/Cargo.toml'] : [])],
      tests: ['tests/**', 'benches/**'],
      inputs: configGlobsOf(['cargo']),
      exclude: ['target/**'],
      block: true,
      timeout: 1200,
      proves: '`cargo test` passes on the declared crate files.',
      from: 'Cargo.toml',
    },
  ];
}
