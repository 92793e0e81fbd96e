// The architecture as an ordered list: each tier stands on the tiers listed
// before it. A file in src/<folder>/ may import its own folder and folders of
// lower tiers only; never a sibling of its own tier, never a tier above.
// dependency-cruiser checks it on resolved paths (static and dynamic imports,
// type-only imports, re-exports), with no cycles allowed anywhere in src/
// (.dependency-cruiser.mjs). docs/decisions/architecture.md says why.

/** Lowest first. '' is src/ itself (version.ts, build-id.ts). */
export const TIERS = [
  { name: 'vocabulary', folders: ['', 'core'] },
  { name: 'leaves', folders: ['receipt', 'runner', 'workspace', 'cache', 'release', 'sandbox', 'clients'] },
  { name: 'files in scope, config files edited', folders: ['scope', 'install'] },
  { name: 'the spec, archives and traces', folders: ['spec', 'archive', 'trace'] },
  { name: 'storage, trust, the hermetic copy and the write guard', folders: ['ledger', 'trust', 'hermetic', 'guard'] },
  { name: 'keys and logs', folders: ['crypto', 'logs'] },
  { name: 'the engine and what reads the chain', folders: ['engine', 'audit', 'export'] },
  { name: 'the domain', folders: ['gate', 'cards', 'remote', 'service'] },
  { name: 'the fleet and the per-command sandbox', folders: ['fleet', 'exec'] },
  { name: 'orchestration and words', folders: ['stop', 'session', 'render', 'retention'] },
  { name: 'the report (its model and its renderers)', folders: ['report'] },
  { name: 'front ends', folders: ['hooks', 'mcp', 'init', 'doctor'] },
  { name: 'the command line', folders: ['cli'] },
  { name: 'entry points', folders: ['entry'] },
];

/** Every folder with a layer, '' (src/ itself) included. */
export const LAYERED = TIERS.flatMap((tier) => tier.folders);

/** The tier index of a folder of src/ ('' for src/ itself), or -1 when it has none. */
export function tierOf(folder) {
  return TIERS.findIndex((tier) => tier.folders.includes(folder));
}

/** The folders a file in `folder` must never import: its tier's siblings and every tier above. */
export function forbiddenFor(folder) {
  const own = tierOf(folder);
  return TIERS.slice(own)
    .flatMap((tier) => tier.folders)
    .filter((other) => other !== folder);
}
