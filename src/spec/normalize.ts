import { digestJson, type Sha256 } from '../core/digest.js';
import { redact } from '../runner/redact.js';
import { checkGlob, checkRelativePath } from '../scope/paths.js';
import { definitionDigest } from './definition.js';
import {
  DEFAULT_EXCERPT_BYTES,
  DEFAULT_EXEC_TIMEOUT_SECONDS,
  DEFAULT_EXCLUDED_DIRS,
  DEFAULT_GATE,
  DEFAULT_LIMITS,
  DEFAULT_RETENTION,
  DEFAULT_TIMEOUT_SECONDS,
  type CheckDef,
  type ExecPolicy,
  type Expectation,
  type Spec,
} from './model.js';
import type { RawCheck, RawExec, RawSpec } from './schema.js';

/** Applies defaults to a validated spec; rules.ts has already refused bad paths. */
export function normalize(raw: RawSpec, path: string, sha256: Sha256): Spec {
  return {
    path,
    sha256,
    checks: raw.checks.map((check) => normalizeCheck(check, raw.hermetic ?? false, raw.default_excludes ?? true)),
    excerptBytes: raw.excerpt_bytes ?? DEFAULT_EXCERPT_BYTES,
    signingKey: raw.signing_key ?? null,
    requireSignature: raw.require_signature ?? false,
    ledger: raw.ledger ?? null,
    verifierKey: raw.verifier_key?.toLowerCase() ?? null,
    gate: {
      onStop: raw.gate?.on_stop ?? DEFAULT_GATE.onStop,
      maxBlocks: raw.gate?.max_blocks ?? DEFAULT_GATE.maxBlocks,
      budgetSeconds: raw.gate?.budget_seconds ?? DEFAULT_GATE.budgetSeconds,
      requireRemote: raw.gate?.require_remote ?? DEFAULT_GATE.requireRemote,
      requireBox: raw.gate?.require_box ?? DEFAULT_GATE.requireBox,
    },
    protect: globs(raw.protect),
    toolConfigs: [...new Set(raw.tool_configs ?? [])].sort(),
    retention: {
      days: raw.retention?.days ?? DEFAULT_RETENTION.days,
      perCheck: raw.retention?.per_check ?? DEFAULT_RETENTION.perCheck,
      logDays: raw.retention?.log_days ?? DEFAULT_RETENTION.logDays,
      logs: raw.retention?.logs ?? DEFAULT_RETENTION.logs,
      auto: raw.retention?.auto ?? DEFAULT_RETENTION.auto,
    },
    limits: {
      maxFiles: raw.limits?.max_files ?? DEFAULT_LIMITS.maxFiles,
      maxBytes: raw.limits?.max_bytes ?? DEFAULT_LIMITS.maxBytes,
    },
    dedupeWindowSeconds: raw.dedupe_window_seconds ?? 0,
    exec: execPolicy(raw.exec),
  };
}

/** `exec:` with its defaults; rules.ts has refused a host list and unsafe paths. */
export function execPolicy(raw: RawExec | undefined): ExecPolicy {
  if (Array.isArray(raw?.network)) throw new Error('bug: unvalidated exec.network host list');
  const writable = (raw?.writable ?? ['.']).map((path) => {
    const home = path === '~' || path.startsWith('~/');
    const checked = checkRelativePath(home ? (path === '~' ? '.' : path.slice(2)) : path);
    if (!checked.ok) throw new Error(`bug: unvalidated exec.writable ${path}`);
    return home ? (checked.value === '.' ? '~' : `~/${checked.value}`) : checked.value;
  });
  const fields = {
    network: raw?.network ?? false,
    writable: [...new Set(writable)].sort(),
    deny: [...new Set(raw?.deny ?? [])].sort(),
    timeout: raw?.timeout ?? DEFAULT_EXEC_TIMEOUT_SECONDS,
    mode: raw?.mode ?? 'enforce',
  };
  return { ...fields, digest: digestJson(fields) };
}

/**
 * The default excludes that apply to a check: one `**\/NAME/**` per default
 * folder, unless one of its source or test globs names that folder (then
 * the person asked for it).
 */
function defaultExcludesFor(sources: readonly string[], tests: readonly string[]): string[] {
  const named = new Set([...sources, ...tests].flatMap((glob) => glob.split('/')));
  return DEFAULT_EXCLUDED_DIRS.filter((name) => !named.has(name)).map((name) => `**/${name}/**`);
}

function globs(list: readonly string[] | undefined): string[] {
  return (list ?? []).map((glob) => {
    const result = checkGlob(glob);
    if (!result.ok) throw new Error(`bug: unvalidated glob ${glob}`);
    return result.value;
  });
}

function expectation(raw: RawCheck['expect']): Expectation {
  if (raw === undefined || raw === 'exit0') return { kind: 'exit', code: 0 };
  if ('exit' in raw) return { kind: 'exit', code: raw.exit };
  if ('regex' in raw) return { kind: 'regex', pattern: raw.regex };
  const result = checkRelativePath(raw.file_exists);
  if (!result.ok) throw new Error(`bug: unvalidated file_exists ${raw.file_exists}`);
  return { kind: 'file_exists', path: result.value };
}

function normalizeCheck(raw: RawCheck, hermeticByDefault: boolean, defaultExcludes: boolean): CheckDef {
  const cwd = checkRelativePath(raw.cwd ?? '.');
  if (!cwd.ok) throw new Error(`bug: unvalidated cwd ${String(raw.cwd)}`);
  const run = typeof raw.run === 'string' ? [raw.run] : [...raw.run];
  const fields = {
    run,
    shell: raw.shell ?? false,
    cwd: cwd.value,
    timeout: raw.timeout ?? DEFAULT_TIMEOUT_SECONDS,
    env: [...new Set(raw.env ?? [])].sort(),
    sources: globs(raw.sources),
    tests: globs(raw.tests),
    artifacts: globs(raw.artifacts),
    inputs: globs(raw.inputs),
    exclude: globs(raw.exclude),
    expect: expectation(raw.expect),
    allowMissing: raw.allow_missing ?? false,
    hermetic: raw.hermetic ?? hermeticByDefault,
    network: raw.network ?? false,
    ...(raw.min_tests !== undefined && { minTests: raw.min_tests }),
    ...(raw.max_skips !== undefined && { maxSkips: raw.max_skips }),
  };
  return {
    id: raw.id,
    ...fields,
    block: raw.block ?? true,
    cache: raw.cache ?? true,
    serial: raw.serial ?? false,
    tier: raw.tier ?? null,
    // Redacted once, here: every surface that shows it (status, verify, checks, show, MCP, report, the receipt) shows this text.
    proves: redact(raw.proves ?? defaultProves(fields.run, fields.shell, fields.expect)),
    defaultExcludes: defaultExcludes ? defaultExcludesFor(fields.sources, fields.tests) : [],
    definitionDigest: definitionDigest(fields),
  };
}

function defaultProves(run: readonly string[], shell: boolean, expect: Expectation): string {
  const command = shell ? run[0] : run.join(' ');
  const outcome =
    expect.kind === 'exit'
      ? `exited ${expect.code}`
      : expect.kind === 'regex'
        ? `exited 0 and printed output matching /${expect.pattern}/`
        : `exited 0 and left ${expect.path} in place`;
  return `\`${command}\` ${outcome} on the declared scope.`;
}
