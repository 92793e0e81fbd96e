import type { Project } from './project.js';
import type { Proposal } from './proposal.js';

/** `go test` and `go vet` from go.mod; `_test.go` files and testdata/ are tests. */
export function fromGo(project: Project): Proposal[] {
  if (!project.has('go.mod')) return [];
  const sources = ['**/*.go', 'go.mod', ...project.existing(['go.sum'])];
  const tests = ['**/*_test.go', '**/testdata/**'];
  const exclude = ['vendor/**'];
  return [
    { id: 'tests', family: 'go', run: ['go', 'test', './...'], sources, tests, exclude, block: true, timeout: 600, proves: '`go test ./...` passes on the declared Go files.', from: 'go.mod' },
    { id: 'vet', family: 'go', run: ['go', 'vet', './...'], sources, tests, exclude, block: true, timeout: 300, proves: '`go vet ./...` reports nothing.', from: 'go.mod' },
  ];
}

/** `cargo test` from Cargo.toml: the crate's Rust files, its manifest and lockfile; tests/ and benches/ are tests. */
export function fromCargo(project: Project): Proposal[] {
  if (!project.has('Cargo.toml')) return [];
  return [
    {
      id: 'tests',
      family: 'cargo',
      run: ['cargo', 'test'],
      sources: ['**/*.rs', 'Cargo.toml', ...project.existing(['Cargo.lock', 'rust-toolchain.toml', 'rust-toolchain'])],
      tests: ['tests/**', 'benches/**'],
      exclude: ['target/**'],
      block: true,
      timeout: 1200,
      proves: '`cargo test` passes on the declared crate files.',
      from: 'Cargo.toml',
    },
  ];
}
