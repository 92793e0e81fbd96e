import * as z from 'zod/mini';
import {
  CHECK_FIELDS,
  CHECK_ID_PATTERN,
  EXEC_FIELDS,
  EXEC_MODES,
  EXPECT_FIELDS,
  GATE_FIELDS,
  LIMITS_FIELDS,
  ON_STOP,
  RETENTION_FIELDS,
  TIERS,
  TOP_LEVEL_FIELDS,
} from './fields.js';

/**
 * The shape of vouch.yaml. Only shape lives here; rules that relate fields
 * (a string `run` needs `shell: true`, at least one scope, unique ids, glob
 * safety) are in rules.ts, so each rule has one small function and one test.
 */

const describe = <T>(text: string) => z.describe<T>(text);

/** A tool config entry: a bare file name (not . or ..), or ~/ and a path without .. segments. */
const TOOL_CONFIG_PATTERN = /^(?:~\/(?!(?:.*\/)?\.\.(?:\/|$))[^\0]+|(?!\.{1,2}$)[^/\0]+)$/;

const stringList = (text: string) => z.optional(z.array(z.string().check(z.minLength(1))).check(describe(text)));

const expectation = z
  .union([
    z.literal('exit0'),
    z.strictObject({ exit: z.int().check(z.minimum(0), z.maximum(255), describe(EXPECT_FIELDS.exit)) }),
    z.strictObject({ regex: z.string().check(z.minLength(1), describe(EXPECT_FIELDS.regex)) }),
    z.strictObject({ file_exists: z.string().check(z.minLength(1), describe(EXPECT_FIELDS.file_exists)) }),
  ])
  .check(describe(CHECK_FIELDS.expect));

export const checkSchema = z.strictObject({
  id: z.string().check(z.regex(CHECK_ID_PATTERN), describe(CHECK_FIELDS.id)),
  run: z.union([z.array(z.string().check(z.minLength(1))).check(z.minLength(1)), z.string().check(z.minLength(1))]).check(describe(CHECK_FIELDS.run)),
  shell: z.optional(z.boolean().check(describe(CHECK_FIELDS.shell))),
  cwd: z.optional(z.string().check(z.minLength(1), describe(CHECK_FIELDS.cwd))),
  timeout: z.optional(z.int().check(z.minimum(1), z.maximum(3600), describe(CHECK_FIELDS.timeout))),
  env: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/))).check(describe(CHECK_FIELDS.env))),
  sources: stringList(CHECK_FIELDS.sources),
  tests: stringList(CHECK_FIELDS.tests),
  artifacts: stringList(CHECK_FIELDS.artifacts),
  inputs: stringList(CHECK_FIELDS.inputs),
  exclude: stringList(CHECK_FIELDS.exclude),
  expect: z.optional(expectation),
  block: z.optional(z.boolean().check(describe(CHECK_FIELDS.block))),
  tier: z.optional(z.enum(TIERS).check(describe(CHECK_FIELDS.tier))),
  proves: z.optional(z.string().check(z.minLength(1), describe(CHECK_FIELDS.proves))),
  allow_missing: z.optional(z.boolean().check(describe(CHECK_FIELDS.allow_missing))),
  cache: z.optional(z.boolean().check(describe(CHECK_FIELDS.cache))),
  serial: z.optional(z.boolean().check(describe(CHECK_FIELDS.serial))),
  hermetic: z.optional(z.boolean().check(describe(CHECK_FIELDS.hermetic))),
  network: z.optional(z.boolean().check(describe(CHECK_FIELDS.network))),
  min_tests: z.optional(z.int().check(z.minimum(1), z.maximum(1_000_000), describe(CHECK_FIELDS.min_tests))),
  max_skips: z.optional(z.int().check(z.minimum(0), z.maximum(1_000_000), describe(CHECK_FIELDS.max_skips))),
});

export const gateSchema = z
  .strictObject({
    on_stop: z.optional(z.enum(ON_STOP).check(describe(GATE_FIELDS.on_stop))),
    max_blocks: z.optional(z.int().check(z.minimum(1), z.maximum(100), describe(GATE_FIELDS.max_blocks))),
    budget_seconds: z.optional(z.int().check(z.minimum(1), z.maximum(3600), describe(GATE_FIELDS.budget_seconds))),
    require_remote: z.optional(z.boolean().check(describe(GATE_FIELDS.require_remote))),
    require_box: z.optional(z.boolean().check(describe(GATE_FIELDS.require_box))),
  })
  .check(describe(TOP_LEVEL_FIELDS.gate));

export const retentionSchema = z
  .strictObject({
    days: z.optional(z.int().check(z.minimum(0), z.maximum(36500), describe(RETENTION_FIELDS.days))),
    per_check: z.optional(z.int().check(z.minimum(1), z.maximum(1_000_000), describe(RETENTION_FIELDS.per_check))),
    log_days: z.optional(z.int().check(z.minimum(0), z.maximum(36500), describe(RETENTION_FIELDS.log_days))),
    logs: z.optional(z.boolean().check(describe(RETENTION_FIELDS.logs))),
    auto: z.optional(z.int().check(z.minimum(0), z.maximum(1_000_000), describe(RETENTION_FIELDS.auto))),
  })
  .check(describe(TOP_LEVEL_FIELDS.retention));

export const limitsSchema = z
  .strictObject({
    max_files: z.optional(z.int().check(z.minimum(1), z.maximum(10_000_000), describe(LIMITS_FIELDS.max_files))),
    max_bytes: z.optional(z.int().check(z.minimum(1), z.maximum(1024 ** 4), describe(LIMITS_FIELDS.max_bytes))),
  })
  .check(describe(TOP_LEVEL_FIELDS.limits));

export const execSchema = z
  .strictObject({
    network: z.optional(z.union([z.boolean(), z.array(z.string().check(z.minLength(1)))]).check(describe(EXEC_FIELDS.network))),
    writable: z.optional(z.array(z.string().check(z.minLength(1))).check(describe(EXEC_FIELDS.writable))),
    deny: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z0-9._+-]+$/))).check(describe(EXEC_FIELDS.deny))),
    timeout: z.optional(z.int().check(z.minimum(1), z.maximum(86_400), describe(EXEC_FIELDS.timeout))),
    mode: z.optional(z.enum(EXEC_MODES).check(describe(EXEC_FIELDS.mode))),
  })
  .check(describe(TOP_LEVEL_FIELDS.exec));

export const specSchema = z.strictObject({
  version: z.literal(1).check(describe(TOP_LEVEL_FIELDS.version)),
  checks: z.array(checkSchema).check(z.minLength(1), describe(TOP_LEVEL_FIELDS.checks)),
  excerpt_bytes: z.optional(z.int().check(z.minimum(0), z.maximum(65536), describe(TOP_LEVEL_FIELDS.excerpt_bytes))),
  signing_key: z.optional(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/), describe(TOP_LEVEL_FIELDS.signing_key))),
  require_signature: z.optional(z.boolean().check(describe(TOP_LEVEL_FIELDS.require_signature))),
  ledger: z.optional(z.string().check(z.regex(/^postgres(ql)?:\/\/\S+$/), describe(TOP_LEVEL_FIELDS.ledger))),
  verifier_key: z.optional(z.string().check(z.regex(/^[0-9a-fA-F]{64}$/), describe(TOP_LEVEL_FIELDS.verifier_key))),
  gate: z.optional(gateSchema),
  protect: stringList(TOP_LEVEL_FIELDS.protect),
  hermetic: z.optional(z.boolean().check(describe(TOP_LEVEL_FIELDS.hermetic))),
  tool_configs: z.optional(z.array(z.string().check(z.regex(TOOL_CONFIG_PATTERN))).check(describe(TOP_LEVEL_FIELDS.tool_configs))),
  retention: z.optional(retentionSchema),
  limits: z.optional(limitsSchema),
  dedupe_window_seconds: z.optional(z.int().check(z.minimum(0), z.maximum(86_400), describe(TOP_LEVEL_FIELDS.dedupe_window_seconds))),
  default_excludes: z.optional(z.boolean().check(describe(TOP_LEVEL_FIELDS.default_excludes))),
  exec: z.optional(execSchema),
});

export type RawSpec = z.infer<typeof specSchema>;
export type RawCheck = z.infer<typeof checkSchema>;
export type RawGate = z.infer<typeof gateSchema>;
export type RawExec = z.infer<typeof execSchema>;
