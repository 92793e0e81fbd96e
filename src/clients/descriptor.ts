import type { HookProtocol } from './hook-protocol.js';

/** Where an install goes: the workspace's own files, or the user's (every workspace). */
export type Scope = 'project' | 'user';

/**
 * Seconds a client waits for the Stop hook. The gate's own budget (at most
 * 3600 s) bounds the checks it runs; a client that gave up first would let
 * the stop through, so the wait is longer than any budget.
 */
export const STOP_TIMEOUT_SECONDS = 3660;
/** Seconds a client waits for the guard and the trail. */
export const TOOL_TIMEOUT_SECONDS = 30;

/** One event a client's hook settings run vouch on. */
export interface HookEvent {
  readonly event: string;
  readonly matcher: string | null;
  readonly timeout: number;
  /**
   * Claude Code's `onFailure: "block"`: when the hook command itself cannot
   * run (node missing, vouch not where the command says), the call is
   * blocked rather than let through. The guard sets it, as the plugin does.
   */
  readonly onFailure?: 'block';
  /** The client's first version vouch has run this event with; an older client gets the install without it (HooksFileInstall.olderNote says what that means). */
  readonly since?: string;
}

/**
 * A client that reads its hooks from a JSON file: one matcher group per
 * event, appended to `hooks.<Event>` (Claude Code's settings, Codex's
 * hooks.json).
 */
export interface HooksFileInstall {
  readonly kind: 'hooks-file';
  /** What `vouch install` wires, in words. */
  readonly summary: string;
  /** Scopes it accepts; the first is the default. */
  readonly scopes: readonly Scope[];
  /** The JSON file vouch's hook commands go in, for a scope (`root` is the workspace's, needed at project scope). */
  readonly file: (scope: Scope, root: string | null, env: NodeJS.ProcessEnv) => string;
  readonly events: readonly HookEvent[];
  /** The installed client's version (x.y.z), read at install; null when it cannot be found (every event is installed then). */
  readonly version?: (env: NodeJS.ProcessEnv) => string | null;
  /** Said when an older client gets the install without the events it does not run. */
  readonly olderNote?: string;
  /** The variable the client sets to the project's directory in a hook's environment (`CLAUDE_PROJECT_DIR`): project-scope commands find the project's own vouch through it. */
  readonly projectDirVariable?: string;
}

/**
 * A client that loads Python plugins from a directory and enables them in its
 * YAML config (Hermes Agent): vouch's plugin, a thin shim that runs `vouch
 * hook ID EVENT`, goes in `<home>/plugins/vouch/`.
 */
export interface HermesPluginInstall {
  readonly kind: 'hermes-plugin';
  readonly summary: string;
  /** The client's home (its config.yaml and plugins/ are there). */
  readonly home: (env: NodeJS.ProcessEnv) => string;
}

/** How `vouch install CLIENT` wires the client's hooks to vouch; each kind has one installer (install/targets/). */
export type HookInstall = HooksFileInstall | HermesPluginInstall;

/** The client's own OS sandbox for the agent's commands, as vouch reads and writes it (gate/box.ts, install/targets/). */
export type BoxKind = 'claude-code-sandbox' | 'codex-permissions';

/** One file or directory of a client's wiring: its edit could remove, blind or bypass the gate. */
export interface ClientPlace {
  /** Absolute, as vouch computes it (not resolved through symlinks; it may not exist). */
  readonly path: string;
  /** A directory: everything beneath it is wiring too. */
  readonly dir: boolean;
  readonly scope: Scope;
  /** What it wires, in words, for messages: "Claude Code's project settings (its hooks)". */
  readonly what: string;
}

/** What vouch needs to gate a client through its hooks. */
export interface ClientHooks {
  readonly protocol: HookProtocol;
  readonly install: HookInstall;
  /**
   * The client's files that wire the gate: with a workspace root, the
   * project's and the user's; with null, the user's alone.
   */
  readonly wiring: (root: string | null, env: NodeJS.ProcessEnv) => readonly ClientPlace[];
  /** The client's folder in a project (.claude, .codex): the box keeps it read-only whole. */
  readonly projectDir: string | null;
  /** The client's sandbox vouch turns on at install and checks at every stop; null when it has none vouch knows. */
  readonly box: BoxKind | null;
  /**
   * Where the client has no sandbox of its own in force (installed with
   * `--no-sandbox --exec`): the event whose hook rewrites each shell call
   * into `vouch exec -- /bin/sh -c CMD` (the protocol's rewriteShell).
   * Absent: the client cannot have its calls rewritten.
   */
  readonly exec?: { readonly event: string };
}

/**
 * One agent client vouch knows: who it is, how to tell a process runs
 * inside it, and (when vouch gates it through hooks) its hook protocol, its
 * install and its wiring. Every list of clients in vouch is derived from
 * clients/registry.ts: a new client is its descriptor file and one line
 * there.
 */
export interface AgentClient {
  /** The name vouch uses for it everywhere: `vouch hook ID`, `vouch install ID`, the ledger's `client`. */
  readonly id: string;
  /** Its name for people: "Claude Code". */
  readonly label: string;
  /**
   * Environment variables the client puts in everything it runs (the
   * agent's commands, its hooks, its MCP servers): set (not '' or '0'),
   * they show a process runs inside an agent's run (clients/agent-run.ts).
   */
  readonly markers: readonly string[];
  /**
   * The variable holding the id of the session whose run this is, as the
   * client's hook payloads name it (session_id): where a card opened from
   * that run sends its answer. Absent when the client sets none vouch checked.
   */
  readonly sessionVariable?: string;
  /** Null when vouch knows the client only by its markers (and, maybe, its MCP entry). */
  readonly hooks: ClientHooks | null;
}
