import type { Sha256 } from '../core/digest.js';
import type { Group, Manifest } from './manifest.js';

// What a scan is asked and answers, apart from the scan itself: the stat
// cache's scope records and the remembered scans read these types without
// importing the walker.

/** The scope of one check, as the spec declares it. */
export interface ScopeDecl {
  readonly sources: readonly string[];
  readonly tests: readonly string[];
  readonly artifacts: readonly string[];
  /**
   * The files that decide what the command does (group `input`): may match
   * nothing, never removed by `exclude`, and read even when
   * credential-shaped (hashed, never shown). Absent: none.
   */
  readonly inputs?: readonly string[];
  readonly exclude: readonly string[];
  /** The spec's default excludes that apply (spec/model.ts CheckDef.defaultExcludes); absent: none. */
  readonly defaultExcludes?: readonly string[];
  readonly allowMissing: boolean;
}

export type ScanProblemReason = 'path_escape' | 'scope_empty' | 'changed_during_hash' | 'scope_unreadable' | 'artifact_missing';

export interface ScanProblem {
  readonly reason: ScanProblemReason;
  /** The file, directory or glob concerned. */
  readonly path: string;
  readonly detail: string;
}

export interface ScanResult {
  readonly manifest: Manifest;
  /** Empty when the scope was read completely and every glob matched. */
  readonly problems: readonly ScanProblem[];
  /** The manifest's digest, when it is already known (a remembered result, or one just recorded). */
  readonly manifestDigest?: Sha256;
}

/** One scope to scan, with the groups of it wanted (inputs only, before a run). */
export interface ScopeRequest {
  readonly scope: ScopeDecl;
  readonly groups: readonly Group[];
}
