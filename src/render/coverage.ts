import { unreachable } from '../core/unreachable.js';
import type { CoverageWarning } from '../scope/coverage.js';
import type { Group } from '../scope/manifest.js';

const FIELD_OF: Readonly<Record<Group, string>> = { input: 'inputs', source: 'sources', test: 'tests', artifact: 'artifacts' };

/**
 * A coverage warning in words: what is wrong with the glob and what to do.
 * One exhaustive switch, so a new warning does not compile until it can be
 * explained.
 */
export function explainCoverage(warning: CoverageWarning): { message: string; next: string } {
  switch (warning.reason) {
    case 'glob_shadowed': {
      const others = warning.lostTo.map((group) => FIELD_OF[group]).join(' and ');
      const n = warning.matched;
      return {
        message: `${warning.field} glob "${warning.glob}" matches ${n} file${n === 1 ? '' : 's'}, all taken by ${others} (inputs are tried first, then tests, sources, artifacts), so it covers none as ${warning.field}: verify answers UNKNOWN (${warning.field === 'artifacts' ? 'artifact_missing' : 'scope_empty'})`,
        next: `remove "${warning.glob}" from ${warning.field}, or narrow the ${others} glob that takes its files`,
      };
    }
    case 'glob_empty':
      if (warning.credentials.length > 0)
        return {
          message: `${warning.field} glob "${warning.glob}" names only credential-shaped files (${warning.credentials.slice(0, 3).join(', ')}), which vouch never reads as scope: verify answers UNKNOWN (scope_empty)`,
          next: `remove "${warning.glob}"; a tool config such as .npmrc is pinned by hash at \`vouch allow\` (list others in tool_configs:), and an edit of it makes the check UNKNOWN (tool_config_changed)`,
        };
      return {
        message: `${warning.field} glob "${warning.glob}" matches no readable file: verify answers UNKNOWN (scope_empty)`,
        next: 'fix the glob (a directory needs "dir/**"), or set allow_missing: true if that is intended',
      };
    default:
      return unreachable(warning);
  }
}
