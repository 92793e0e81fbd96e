import type { GateContext } from '../gate/context.js';
import type { Invocation } from '../render/gate.js';

/** What a hook call needs: the gate's context, and how to name vouch to the agent. */
export interface HookContext extends GateContext {
  /** How the agent can run vouch itself, quoted in block reasons. */
  readonly self: Invocation;
  /** Where the client works when the payload has no cwd (CLAUDE_PROJECT_DIR, else the hook's cwd). */
  readonly fallbackCwd: string;
  /** `vouch hook CLIENT PreToolUse --exec`: a shell call the guard lets through is rewritten into `vouch exec -- ...`. */
  readonly exec?: boolean;
}
