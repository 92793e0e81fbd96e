import type { ScopeDecl } from './scan-types.js';

/**
 * Every exclude that applies to a scope's sources and tests: the ones its
 * check wrote, then the spec's default excludes for it (virtualenvs,
 * caches, build outputs; spec/normalize.ts decides which apply). One list,
 * so the scan, the coverage report, the scope record's key and the gate's
 * path matcher never disagree on what is out of scope.
 */
export function excludesOf(scope: Pick<ScopeDecl, 'exclude' | 'defaultExcludes'>): readonly string[] {
  const defaults = scope.defaultExcludes;
  return defaults === undefined || defaults.length === 0 ? scope.exclude : [...scope.exclude, ...defaults];
}
