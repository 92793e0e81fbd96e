/**
 * What each spec field expects, in words. One table feeds both the JSON
 * Schema descriptions and the error messages, so the two never disagree.
 */
export const TOP_LEVEL_FIELDS = {
  version: 'the spec format version; must be 1',
  checks: 'a non-empty list of checks',
  excerpt_bytes: 'how many bytes of each output stream a receipt keeps, redacted: an integer from 0 to 65536 (default 4096)',
  signing_key: 'the name of a key under VOUCH_HOME/keys that signs every receipt recorded here (VOUCH_SIGNING_KEY overrides it), e.g. "default"',
  require_signature:
    'true: a receipt without a valid signature by a trusted key never counts as PASS, and verify refuses to run without a signing key; default false',
  ledger:
    'a PostgreSQL URL for a shared team ledger, e.g. postgres://vouch@db.internal:5432/vouch (optionally ?schema=NAME), with no password (put a URL with credentials in VOUCH_LEDGER, which overrides this); absent: .vouch/ledger.db',
  verifier_key:
    "the verifier service's Ed25519 public key as 64 hex characters (`vouch keys export-public --format hex` on the server): remote receipts count only when signed by it or by a key in VOUCH_HOME/keys",
  gate: 'how the agent gate (the Stop hook) behaves: {on_stop, max_blocks, budget_seconds, require_remote, require_box}',
  protect: 'workspace-relative globs the agent may not write (vouch.yaml and .vouch/ are always protected)',
  hermetic:
    "true: every check runs hermetic (a check may say false): in a bubblewrap sandbox whose workspace holds only a private copy of its declared sources, tests and inputs, read-only, its artifacts' folders writable, an empty HOME, a private /tmp and no network; default false",
  tool_configs:
    'more files that configure how the checks\' tools run, pinned by digest when vouch.yaml is allowed (a change makes the affected checks UNKNOWN until allowed again): a file name looked up from each check\'s cwd up to the workspace root, e.g. ".mocharc.yml", or a path under HOME, e.g. "~/.config/foo/config"; .npmrc, .yarnrc(.yml), .pnpmfile.cjs, bunfig.toml, pip.conf, pytest.toml, .pytest.toml, pytest.ini, .pytest.ini, pyproject.toml, setup.cfg, tox.ini (package.json too for a check that runs npm, npx, yarn, pnpm or bun) and the HOME ones are always pinned',
  retention:
    "what `vouch gc` with no flags keeps and whether whole logs are kept: {days (receipts and trail entries older than this go; default 30), per_check (at most this many receipts of each check; default 200), log_days (whole logs older than this go, their receipts stay; default: with their receipts), logs (false: keep hashes and excerpts only, no whole log; default true), auto (a person's `vouch verify` runs a bounded gc once the policy would remove at least this many entries; default 100; 0: never)}",
  limits:
    "the most one check's scope may hold: {max_files (default 100000), max_bytes (default 4294967296)}; past either the check is UNKNOWN (scope_too_large) and its command is not run",
  dedupe_window_seconds:
    "an integer number of seconds from 0 to 86400 (default 0: off): a rerun of a check within this many seconds of the first of a series of identical outcomes (same definition, pins, fingerprint, verdict and reason as the run before it) is still recorded in full, and carries duplicate_of (that first receipt's id) and dedupe_count",
  exec: 'the policy of `vouch exec -- CMD...`, the per-command sandbox: {network, writable, deny, timeout, mode}',
  default_excludes:
    "false: sources and tests take in virtualenvs (.venv, venv, .tox, .nox), caches (__pycache__, .pytest_cache, .mypy_cache, .ruff_cache, .cache), dist and build like any folder; default true: those folders are left out unless a check's glob names them",
} as const;

export const EXEC_FIELDS = {
  network: 'false (default: loopback only) or true (the host network); a list of hosts is refused: vouch exec has no allow-listing proxy yet',
  writable:
    'workspace-relative paths (or ~/ paths under HOME) the command may write, default ["."]; what vouches (vouch.yaml, .vouch/, the clients\' settings, git hooks, VOUCH_HOME, protect: paths) stays read-only inside them, and a writable path inside one of those is refused',
  deny: 'program names the command may not run, e.g. ["curl", "wget", "ssh"]: refused by name, by where the name leads, and by content (a copy under another name), and hidden inside the sandbox',
  timeout: "an integer number of seconds from 1 to 86400 after which the command's process group is killed (exit 124); default 600",
  mode: 'enforce (default: a denied program, a network program under network: false, or a write to what vouches that the command line shows is BLOCKED before it runs) or audit (recorded in the receipt, and the command runs; the sandbox holds either way)',
} as const;

export const EXEC_MODES = ['enforce', 'audit'] as const;
export type ExecMode = (typeof EXEC_MODES)[number];

export const RETENTION_FIELDS = {
  days: 'an integer number of days from 0 to 36500',
  per_check: 'an integer from 1 to 1000000',
  log_days: 'an integer number of days from 0 to 36500',
  logs: 'true or false',
  auto: 'an integer from 0 to 1000000 (0: never)',
} as const;

export const LIMITS_FIELDS = {
  max_files: 'an integer from 1 to 10000000',
  max_bytes: 'an integer number of bytes from 1 to 1099511627776',
} as const;

/** A check id: what every front end (CLI, hooks, MCP) accepts to name a check, and nothing more. */
export const CHECK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const GATE_FIELDS = {
  on_stop:
    'verify (default: run the stale or missing checks within budget_seconds, then block on any non-PASS) or require (only block, saying how to produce the receipt)',
  max_blocks:
    'consecutive blocks with no file change after which the stop is let through and the session recorded as escaped: an integer from 1 to 100 (default 3)',
  budget_seconds: 'how long one Stop may spend running checks: an integer from 1 to 3600 (default 120)',
  require_remote:
    'true: a check counts only with a remote receipt signed by the verifier_key pinned in vouch.yaml (`vouch verify --remote`); local runs never satisfy the gate, so it runs none; default false',
  require_box:
    "true: a stop is blocked (box_off) when the session ran without the box: its client's own sandbox on, fail-closed, with no way out, and what vouches read-only (`vouch install claude-code` or `vouch install codex` sets it up); default false",
} as const;

export const ON_STOP = ['verify', 'require'] as const;
export type OnStop = (typeof ON_STOP)[number];

export const CHECK_FIELDS = {
  id: 'a check id: 1 to 64 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit, unique in the spec',
  run: 'the command as an argv list of strings, e.g. ["npm", "test"] (a single string only with shell: true)',
  shell: 'true to run `run` (a string) through /bin/sh -c; default false',
  cwd: 'a workspace-relative directory to run in; default "."',
  timeout: 'an integer number of seconds from 1 to 3600; default 120',
  env: 'a list of environment variable names passed through to the check, e.g. ["NODE_OPTIONS"]',
  sources: 'a list of workspace-relative globs, hashed before and after the run',
  tests: 'a list of workspace-relative globs, hashed before and after the run',
  artifacts: 'a list of workspace-relative globs, hashed after the run; each must match a file',
  inputs:
    'a list of workspace-relative globs of the files that decide what the command does (its manifest, lockfile, configs: package.json, pyproject.toml, Makefile...): hashed before and after the run and pinned when vouch.yaml is allowed (a change makes the check UNKNOWN until allowed again); a glob may match nothing yet, and exclude never removes an input',
  exclude: 'a list of workspace-relative globs removed from sources and tests',
  expect: 'exit0, {exit: N}, {regex: "..."} or {file_exists: "path"}',
  block: 'true if the check gates "done" (default), false if it is advisory',
  tier: 'one of leaf, lane, coordinator, bridge; absent means every tier',
  proves: 'one sentence saying what a PASS of this check proves',
  allow_missing: 'true to accept a source or test glob that matches no file; default false',
  cache:
    'false: always run the check, even when an earlier PASS the gate accepts proved the very same files, definition and pins (default true: that PASS is reused, recorded as a receipt naming it)',
  serial:
    'true: never run beside another check (verify -j, the gate run checks side by side), for checks that share outputs such as a file they both regenerate; default false',
  hermetic:
    "true: run in a bubblewrap sandbox that shows the command only a private copy of the declared sources, tests and inputs (read-only), its artifacts' folders (writable, copied back), an empty HOME, a private /tmp and the system directories; default: the top-level hermetic, else false",
  min_tests:
    "an integer from 1 to 1000000: at least this many tests must run (passed or failed, as the test runner's summary counts them) for a PASS; a run with fewer, or whose output vouch cannot read a count from, is UNKNOWN (too_few_tests)",
  max_skips:
    'an integer from 0 to 1000000: at most this many tests may be skipped for a PASS (skips_grew above it); unset, a blocking check may not skip more than at its recent passes',
  network: 'true: a hermetic check keeps the network (default false: a hermetic check has loopback only); needs the check to be hermetic',
} as const;

export const EXPECT_FIELDS = {
  exit: 'the exit code the command must return: an integer from 0 to 255',
  regex: 'a JavaScript regular expression that stdout or stderr must match (the command must also exit 0)',
  file_exists: 'a workspace-relative path that must exist after the run (the command must also exit 0)',
} as const;

export const TIERS = ['leaf', 'lane', 'coordinator', 'bridge'] as const;
export type Tier = (typeof TIERS)[number];
