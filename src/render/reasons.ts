import type { Reason } from '../core/status.js';
import { unreachable } from '../core/unreachable.js';

/**
 * Every reason code in words: what it means and what to do. One exhaustive
 * switch, so a new reason does not compile until it can be explained.
 */
export function explainReason(reason: Reason, checkId: string): { meaning: string; next: string | null } {
  switch (reason) {
    case 'ok':
      return { meaning: 'the command met its expectation on the recorded files', next: null };
    case 'exit_code':
      return {
        meaning: 'the command exited with the wrong code',
        next: `read the output with \`vouch show\`, fix the cause, then \`vouch verify ${checkId}\``,
      };
    case 'signal':
      return { meaning: 'the command was killed by a signal', next: `find out what killed it, then \`vouch verify ${checkId}\`` };
    case 'expectation_unmet':
      return {
        meaning: 'the command exited 0 but its expected output or file was not there',
        next: `\`vouch show\` the receipt, fix the cause, then \`vouch verify ${checkId}\``,
      };
    case 'no_receipt':
      return { meaning: 'the check has never run in this workspace', next: `\`vouch verify ${checkId}\`` };
    case 'timeout':
      return {
        meaning: 'the command was still running at its timeout; its process group was killed',
        next: 'make it faster or raise `timeout` in vouch.yaml (then `vouch allow`)',
      };
    case 'spawn_error':
      return {
        meaning: 'the command could not be started',
        next: 'its detail says what was looked for and where: install the command, or fix run: in vouch.yaml (then `vouch allow`)',
      };
    case 'interrupted':
      return { meaning: 'vouch was interrupted while the check ran', next: `\`vouch verify ${checkId}\`` };
    case 'scope_empty':
      return {
        meaning: 'a declared glob matched no readable file, so nothing would be vouched for',
        next: 'fix the glob in vouch.yaml, or set allow_missing: true if that is intended',
      };
    case 'path_escape':
      return {
        meaning: 'a symlink in scope resolves outside the workspace; it is never followed',
        next: 'remove the symlink from scope or move its target inside the workspace',
      };
    case 'cwd_invalid':
      return { meaning: "the check's cwd is not an existing directory in the workspace", next: 'create the directory or fix `cwd` in vouch.yaml' };
    case 'changed_during_run':
      return {
        meaning: 'a file in scope changed while the check ran (even one changed back: its ctime or inode moved), so the result belongs to no single version',
        next: `stop whatever edits it while it runs (a background process too, or another check run beside it: mark checks that write the same files \`serial: true\`), then \`vouch verify ${checkId}\``,
      };
    case 'changed_during_hash':
      return {
        meaning: 'a file or directory in scope changed or was replaced while it was being read',
        next: `\`vouch verify ${checkId}\` again once writes have settled`,
      };
    case 'scope_unreadable':
      return { meaning: 'a file or directory in scope could not be read', next: 'fix its permissions or exclude it' };
    case 'artifact_missing':
      return { meaning: 'a declared artifact did not exist after the run', next: 'make the command produce it, or fix `artifacts` in vouch.yaml' };
    case 'output_truncated':
      return {
        meaning: 'the output was too long to search whole and the kept part did not match the expected pattern',
        next: 'make the command print less, or match a line near the start or end',
      };
    case 'spec_not_allowed':
      return { meaning: 'vouch.yaml is not allowed in this workspace (new or edited since it was allowed)', next: 'review vouch.yaml, then `vouch allow`' };
    case 'ledger_corrupt':
      return {
        meaning: 'the stored receipt does not match its hash: the ledger was altered or damaged',
        next: 'keep a copy of .vouch/ledger.db for inspection, then verify again',
      };
    case 'signature_missing':
      return {
        meaning: 'the receipt is unsigned and vouch.yaml sets require_signature: true',
        next: `select a signing key (signing_key in vouch.yaml or VOUCH_SIGNING_KEY), then \`vouch verify ${checkId}\``,
      };
    case 'signature_invalid':
      return {
        meaning: "the receipt's signature is malformed or does not verify: the receipt or its signature was altered",
        next: `run \`vouch audit\` to see what else changed, then \`vouch verify ${checkId}\``,
      };
    case 'signature_untrusted':
      return {
        meaning: 'the receipt is signed by a key that is not in VOUCH_HOME/keys',
        next: `\`vouch keys list\` shows the trusted keys; \`vouch verify ${checkId}\` records a receipt signed by yours`,
      };
    case 'remote_unavailable':
      return {
        meaning: 'the verifier service could not be reached or gave no usable answer; nothing was run locally in its place',
        next: `check the service (GET /v1/healthz), then \`vouch verify --remote URL ${checkId}\``,
      };
    case 'remote_refused':
      return {
        meaning: 'the verifier service refused the job (token, limits, or a spec its operator has not allowed)',
        next: 'read the refusal; its hint says what to change',
      };
    case 'remote_unverified':
      return {
        meaning:
          'the verifier answered with a receipt that does not verify under the pinned key or does not bind to these files and this spec: it is not accepted',
        next: "check --pubkey / verifier_key against the server operator's key; report a receipt that fails to bind",
      };
    case 'remote_required':
      return {
        meaning: 'vouch.yaml sets gate.require_remote: only a receipt from the pinned verifier counts, and the latest one is local or from another key',
        next: `\`vouch verify --remote URL ${checkId}\``,
      };
    case 'not_gate_run':
      return {
        meaning:
          "the latest PASS was not made by the gate (it was recorded inside the agent's run, or by another process): evidence made inside an agent's run never lets that agent stop",
        next: 'stop again: the gate runs the check itself (gate.on_stop: verify); with on_stop: require a person runs `vouch verify` in their own terminal',
      };
    case 'executable_changed':
      return {
        meaning: "the check's command resolves to another file than when vouch.yaml was allowed, or that file changed: what runs is the person's choice",
        next: 'if the new program is the one to run, a person runs `vouch allow` (which pins it), then `vouch verify`',
      };
    case 'tool_config_changed':
      return {
        meaning: "a file that configures the check's tool (.npmrc, pip.conf, pytest.ini, ...) appeared, changed or went away since vouch.yaml was allowed",
        next: 'a person reviews the change and runs `vouch allow`, or restores the file',
      };
    case 'pins_mismatch':
      return {
        meaning:
          "the receipt was not made under the pins of the trust record in force (its PATH, program or tool configs were another `vouch allow`'s, or an earlier vouch recorded none): a receipt counts only under the pins a person allowed",
        next: `\`vouch verify ${checkId}\` runs it under the allowed pins`,
      };
    case 'job_bound':
      return {
        meaning:
          "the check met a bound the verifier service sets on each job (its memory, shared memory and tmpfs together; its processes; its directory's size), or could not be placed under them: the kernel, not the code, decided how it ended",
        next: "make the check use less, or ask the service's operator to raise --job-memory-mb, --job-processes or --job-disk-mb",
      };
    case 'input_changed':
      return {
        meaning:
          "a file the check's inputs name (its manifest, lockfile or runner config: package.json, pyproject.toml, ...) appeared, changed or went away since vouch.yaml was allowed: the files that decide what runs are the person's choice",
        next: 'a person reads the change and runs `vouch allow`, or restores the file',
      };
    case 'sandbox_unavailable':
      return {
        meaning: 'the check is hermetic and bubblewrap is missing or could not start its sandbox here; it never runs unconfined in its place',
        next: 'install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap) where user namespaces are allowed, or set hermetic: false on the check and `vouch allow`',
      };
    case 'scope_too_large':
      return {
        meaning: "the check's scope holds more files or bytes than vouch.yaml's limits: allow (max_files, max_bytes), so it was not run",
        next: 'narrow its globs (or exclude what it does not read), or a person raises limits: in vouch.yaml and runs `vouch allow`',
      };
    case 'no_tests_ran':
      return {
        meaning:
          "the command exited 0 but its test runner's summary says no test ran (every test skipped, deselected or missing): a run that tests nothing vouches for nothing",
        next: `find what skipped them (a conftest.py, a skip marker, a filter, a moved test folder), restore the tests, then \`vouch verify ${checkId}\``,
      };
    case 'too_few_tests':
      return {
        meaning: "the check's min_tests asks for at least that many tests to run, and the runner's summary counted fewer (or vouch could read no summary)",
        next: `\`vouch show ${checkId}\` gives the counts; restore the tests, or lower min_tests in vouch.yaml (then \`vouch allow\`)`,
      };
    case 'skips_grew':
      return {
        meaning:
          "the command exited 0 but its test runner skipped more tests than at the check's recent passes (or than its max_skips): a test skipped is a test not run",
        next: `find what newly skips them and restore them, then \`vouch verify ${checkId}\`; if the skips are meant, a person sets max_skips on the check in vouch.yaml and runs \`vouch allow\``,
      };
    case 'work_tree_differs':
      return {
        meaning:
          "a git hook judged the commit being pushed (or the index being committed), whose files in this check's scope differ from the work tree's, and no receipt passed on the commit's own files: nothing is run for a hook on files the work tree does not hold",
        next: `make the work tree hold what is pushed (\`git stash -u\`), \`vouch verify ${checkId}\`, push again, then \`git stash pop\`; for a commit, \`git stash -u --keep-index\` before verifying`,
      };
    case 'fingerprint_changed':
      return { meaning: 'files in scope changed since the receipt', next: `\`vouch verify ${checkId}\`` };
    case 'definition_changed':
      return { meaning: 'the check definition changed since the receipt', next: `\`vouch verify ${checkId}\`` };
    default:
      return unreachable(reason);
  }
}
