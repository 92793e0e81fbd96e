import picomatch from 'picomatch';
import { SPEC_FILE } from '../workspace/spec-file.js';
import type { GuardRole } from './role.js';

/** Why a path may not be written by the agent. */
export type ProtectionRule =
  /** vouch.yaml: the operator's definition of done. */
  | { readonly kind: 'spec' }
  /** .vouch/: the ledger and everything vouch keeps. */
  | { readonly kind: 'state' }
  /** A glob the spec lists under protect:. */
  | { readonly kind: 'protect'; readonly glob: string }
  /** .vouch/cards/: task cards' proof scripts, written by the verifier only. */
  | { readonly kind: 'cards' }
  /** Anything but .vouch/cards/, for the verifier: it writes proofs, not the work it verifies. */
  | { readonly kind: 'verifier_scope' }
  /** The gate's own wiring (its hooks, MCP entries, the git pre-push hook) or VOUCH_HOME: see wiring.ts. */
  | { readonly kind: 'wiring'; readonly what: string };

const STATE_DIR = '.vouch';
const CARDS_DIR = '.vouch/cards';

/**
 * The paths of a workspace an agent may not write: vouch.yaml and .vouch/
 * always, plus the spec's `protect:` globs. Paths are workspace-relative
 * with forward slashes; "." is the root.
 */
export class ProtectedPaths {
  private readonly globs: readonly { glob: string; match: (path: string) => boolean; base: string }[];

  /** `role`: whose writes are judged; a verifier may write under .vouch/cards/ and nowhere else in the workspace. */
  constructor(
    protect: readonly string[],
    private readonly role: GuardRole = 'worker',
  ) {
    this.globs = protect.map((glob) => {
      const scanned = picomatch.scan(glob);
      return { glob, match: picomatch(glob, { dot: true }), base: scanned.isGlob ? scanned.base : glob };
    });
  }

  /** The rule protecting a file written at this path. */
  file(path: string): ProtectionRule | undefined {
    if (path === SPEC_FILE) return { kind: 'spec' };
    if (path.startsWith(`${CARDS_DIR}/`)) return this.role === 'verifier' ? undefined : { kind: 'cards' };
    if (path === STATE_DIR || path.startsWith(`${STATE_DIR}/`)) return { kind: 'state' };
    if (this.role === 'verifier') return { kind: 'verifier_scope' };
    const hit = this.globs.find((g) => g.match(path));
    return hit ? { kind: 'protect', glob: hit.glob } : undefined;
  }

  /**
   * The rule protecting something a command would write, remove or restore
   * at this path when it may be a directory (rm -r, mv, git checkout): the
   * path itself, or anything protected beneath it.
   */
  tree(path: string): ProtectionRule | undefined {
    const direct = this.file(path);
    if (direct) return direct;
    if (path === '.') return { kind: 'spec' };
    const prefix = `${path}/`;
    if (STATE_DIR.startsWith(prefix)) return { kind: 'state' };
    const hit = this.globs.find((g) => g.base === path || g.base.startsWith(prefix) || g.match(`${prefix}x`));
    return hit ? { kind: 'protect', glob: hit.glob } : undefined;
  }
}
