import { digestJson, type Sha256 } from '../core/digest.js';
import type { Expectation } from './model.js';

/** The fields of a check that decide what its PASS means. */
export interface DefinitionFields {
  readonly run: readonly string[];
  readonly shell: boolean;
  readonly cwd: string;
  readonly timeout: number;
  readonly env: readonly string[];
  readonly sources: readonly string[];
  readonly tests: readonly string[];
  readonly artifacts: readonly string[];
  /** Optional: a definition frozen before inputs existed (a task card's) has none. */
  readonly inputs?: readonly string[];
  readonly exclude: readonly string[];
  readonly expect: Expectation;
  readonly allowMissing: boolean;
  /** Absent on definitions frozen before hermetic mode existed (a card's proof): not hermetic. */
  readonly hermetic?: boolean;
  readonly network?: boolean;
  /** Absent: unset (definitions frozen before these existed have neither). */
  readonly minTests?: number | undefined;
  readonly maxSkips?: number | undefined;
}

/**
 * The digest of a check's definition. Changing any field that changes what
 * runs or what is covered turns an old PASS STALE; `block`, `tier` and
 * `proves` are policy and prose and do not. Glob and env lists are sets, so
 * they are sorted: reordering them changes nothing. `inputs` enters the
 * digest only when it lists a glob, `hermetic` and `network` only when
 * true, `min_tests` and `max_skips` only when set, so a check that uses none of them keeps the digest it had before
 * they existed (its PASS does not go STALE).
 */
export function definitionDigest(def: DefinitionFields): Sha256 {
  return digestJson({
    v: 1,
    run: def.run,
    shell: def.shell,
    cwd: def.cwd,
    timeout: def.timeout,
    env: [...def.env].sort(),
    sources: [...def.sources].sort(),
    tests: [...def.tests].sort(),
    artifacts: [...def.artifacts].sort(),
    ...(def.inputs !== undefined && def.inputs.length > 0 && { inputs: [...def.inputs].sort() }),
    exclude: [...def.exclude].sort(),
    expect: def.expect,
    allow_missing: def.allowMissing,
    ...(def.hermetic === true && { hermetic: true }),
    ...(def.hermetic === true && def.network === true && { network: true }),
    ...(def.minTests !== undefined && { min_tests: def.minTests }),
    ...(def.maxSkips !== undefined && { max_skips: def.maxSkips }),
  });
}
