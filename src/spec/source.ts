import type { Problem } from '../core/problem.js';
import type { Result } from '../core/result.js';
import type { Workspace } from '../workspace/find.js';
import type { Spec } from './model.js';

/**
 * How domain code reads a workspace's vouch.yaml: once per invocation (the
 * Session remembers the answer, and answers from the spec cache while the
 * bytes are unchanged), so a Stop hook that needs the spec in five places
 * parses it at most once.
 */
export interface SpecSource {
  /** The spec, or why it cannot be used (unreadable, invalid). */
  load(workspace: Workspace): Promise<Result<Spec, Problem>>;
}
