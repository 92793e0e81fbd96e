/**
 * An edit vouch makes to a file that is not its own (an agent client's
 * settings, a git hook, an MCP config), stated as data before anything is
 * touched: which file, which format, and exactly what changes. The same
 * intent drives install (apply it) and uninstall (take it back).
 */
export interface EditIntent {
  /** Absolute path of the file. */
  readonly path: string;
  readonly format: EditFormat;
  /** One sentence for people: what this edit does. */
  readonly summary: string;
  /** What changes, applied in order, in memory, and written once. */
  readonly changes: readonly Change[];
  /** The steps to make the same edit by hand, quoted when it is refused. */
  readonly manual: readonly string[];
  /**
   * Uninstall touches the file only when vouch's record of this install is
   * there: the values this edit sets carry no mark of vouch (a user's own
   * `sandbox.enabled: true` looks the same), so without the record nothing
   * says they are vouch's to take back.
   */
  readonly onlyWithRecord?: true;
}

export type EditFormat = 'json' | 'toml' | 'yaml' | 'script';

/** A JSON value, as the intent and re-parsing see it. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

export type Change =
  /**
   * JSON: each entry is present in the array at `at` (objects and the array
   * are created when absent). An existing element whose JSON contains
   * `marker` but equals no entry is someone else's edit of ours: refused.
   * No marker (plain strings, such as paths a sandbox keeps read-only):
   * entries are only ever added or taken out, never told apart from the
   * user's own.
   * `earlier`: what an earlier vouch wrote there for the same purpose; such
   * an element is replaced by the (single) entry on install, and removed on
   * uninstall, so that upgrading vouch needs no hand edit.
   */
  | {
      readonly kind: 'json-append';
      readonly at: readonly string[];
      readonly entries: readonly Json[];
      readonly marker?: string;
      readonly earlier?: readonly Json[];
    }
  /** JSON: the key at `at` holds `value` (absent before, or already equal). */
  | { readonly kind: 'json-set'; readonly at: readonly string[]; readonly value: Json }
  /** TOML: the table at `at` (e.g. mcp_servers.vouch) holds `value` (absent before, or already equal). */
  | { readonly kind: 'toml-table'; readonly at: readonly string[]; readonly value: { readonly [key: string]: Json } }
  /**
   * TOML: the top-level key `at[0]` holds the string `value` (absent before,
   * or already equal), written as the file's first line, where no table
   * header can claim it; uninstall takes that line out.
   */
  | { readonly kind: 'toml-key'; readonly at: readonly [string]; readonly value: string }
  /**
   * YAML: the key at `at` (e.g. mcp_servers.vouch) holds `value` (absent
   * before, or already equal), added as block lines inside the mapping that
   * holds it; the user's other lines keep their bytes.
   */
  | { readonly kind: 'yaml-set'; readonly at: readonly string[]; readonly value: Json }
  /** A whole file vouch owns (a git hook script): absent before, or already these bytes. */
  | { readonly kind: 'file'; readonly content: string; readonly mode: number };

/** Why an edit was refused. Nothing is written when one is. */
export type RefusalCode =
  /** The file is not valid JSON, TOML or YAML. */
  | 'invalid_file'
  /** Something on the path has a shape the edit does not understand (an array where an object is expected...). */
  | 'unexpected_shape'
  /** The place is taken: another value, another hook script, a vouch entry with other content. */
  | 'conflict'
  /** The edited text, parsed again, differs from the intended result in some other way. */
  | 'verify_mismatch'
  /** The file or its backup could not be read or written. */
  | 'io_error';

export interface Refusal {
  readonly code: RefusalCode;
  readonly message: string;
  /** The steps to do the edit by hand. */
  readonly manual: readonly string[];
}

/** What an install or uninstall did. */
export type EditOutcome =
  | { readonly kind: 'written'; readonly path: string; readonly backup: string | null; readonly how: 'applied' | 'restored' | 'removed' }
  | { readonly kind: 'unchanged'; readonly path: string; readonly why: string }
  | { readonly kind: 'refused'; readonly path: string; readonly refusal: Refusal };
