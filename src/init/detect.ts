import { coverScopes } from '../scope/coverage.js';
import type { ScopeDecl } from '../scope/scan.js';
import { Snapshot } from '../scope/snapshot.js';
import { fromCargo, fromGo } from './go-cargo.js';
import { fromMakefile } from './make.js';
import { fromPackageJson } from './node.js';
import { Project } from './project.js';
import type { Proposal } from './proposal.js';
import { fromPython } from './python.js';

export type { Proposal } from './proposal.js';
export { renderSpec } from './render.js';

/** What init reads, for the message when it finds nothing to propose. */
export const DETECTED_FROM =
  'package.json scripts (test, lint, typecheck, build), tsconfig.json, Python tests (pytest or unittest), go.mod, Cargo.toml, a Makefile test or check target';

/**
 * Proposes checks from what the project already declares. Every glob kept
 * is judged by the engine's own grouping against the files as they are now:
 * one that matches no file, or whose files all go to another group (a
 * source glob covering only tests), is dropped, so a fresh spec does not
 * start UNKNOWN (scope_empty); input globs are kept, matching or not (a
 * file that appears later counts). A proposal left with no scope is dropped; a
 * second proposal of an id already taken is renamed `ID-FAMILY`.
 */
export async function detectChecks(root: string): Promise<Proposal[]> {
  const project = new Project(root);
  const candidates = [...fromPackageJson(project), ...fromPython(project), ...fromGo(project), ...fromCargo(project), ...fromMakefile(project)].map(deduped);
  const coverage = await coverScopes(new Snapshot(root, { readStart: new Date() }), candidates.map(scopeOf));
  const ids = new Set<string>();
  const kept: Proposal[] = [];
  candidates.forEach((proposal, i) => {
    const failing = new Set(coverage[i]!.warnings.map((warning) => `${warning.field}\0${warning.glob}`));
    const sources = proposal.sources.filter((glob) => !failing.has(`sources\0${glob}`));
    const tests = proposal.tests.filter((glob) => !failing.has(`tests\0${glob}`));
    if (sources.length + tests.length === 0) return;
    const id = ids.has(proposal.id) ? `${proposal.id}-${proposal.family}` : proposal.id;
    if (ids.has(id)) return;
    ids.add(id);
    kept.push({ ...proposal, id, sources, tests });
  });
  return kept;
}

/** A proposal's scope, as the engine reads a check's. */
export function scopeOf(proposal: Proposal): ScopeDecl {
  return { sources: proposal.sources, tests: proposal.tests, artifacts: [], inputs: proposal.inputs, exclude: proposal.exclude, allowMissing: false };
}

function deduped(proposal: Proposal): Proposal {
  return { ...proposal, sources: [...new Set(proposal.sources)], tests: [...new Set(proposal.tests)], inputs: [...new Set(proposal.inputs)] };
}
