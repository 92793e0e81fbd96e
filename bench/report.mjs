// Renders benchmark results as the Markdown table docs/benchmarks.md shows.

const ms = (t) => `${t.median} ms (${t.min}–${t.max})`;

export function renderMarkdown(results) {
  const { machine, items } = results;
  const rows = [];
  const yes = (met) => (met ? 'yes' : 'no');
  const row = (item, vouch, reference, result, target, met) =>
    rows.push(`| ${item} | ${vouch} | ${reference} | ${result} | ${target} | ${typeof met === 'string' ? met : yes(met)} |`);
  const { status, cold, large, verify, ledger, startup, hooks, verifyMonorepo, verifyRootGlobs, hermetic, parallel } = items;
  if (status) {
    row(
      `1. \`vouch status\`, unchanged tree (${status.tree.files.toLocaleString('en')} files, ${status.tree.dirs.toLocaleString('en')} folders, ${(status.tree.ignored ?? 0).toLocaleString('en')} more in node_modules, 4 checks)`,
      ms(status.vouch),
      `git status: ${ms(status.reference)}`,
      `**${status.ratio}x** git status`,
      status.target,
      status.met,
    );
  }
  if (cold) {
    row(
      `2. cold full fingerprint (no stat cache)`,
      `${ms(cold.vouch)}; ${cold.vouch.files_per_s.toLocaleString('en')} files/s, ${cold.vouch.mb_per_s} MB/s`,
      `${cold.reference.name}: ${ms(cold.reference)}; ${cold.reference.files_per_s.toLocaleString('en')} files/s`,
      `**${cold.ratio}x** sha256sum`,
      cold.target,
      cold.met,
    );
  }
  if (large) {
    row(
      `3. ${large.bytes / 2 ** 20} MiB in 128 MiB files`,
      `${ms(large.vouch)}; **${large.vouch.mb_per_s} MB/s**`,
      `openssl: ${ms(large.reference)}; ${large.reference.mb_per_s} MB/s${large.parallel ? `; ${large.parallel.name.replace('openssl dgst -sha256, ', 'openssl ')}: ${ms(large.parallel)}; ${large.parallel.mb_per_s} MB/s` : ''}`,
      `**${Math.round(large.ratio * 100)}%** of openssl's ${large.parallel ? 'faster ' : ''}rate`,
      large.target,
      large.met,
    );
  }
  if (verify) {
    row(
      '4. `vouch verify` of a check running `true`',
      ms(verify.vouch),
      `true: ${ms(verify.reference)}; node -e 0: ${ms(verify.node)}`,
      `**+${verify.added_ms} ms** (+${verify.added_over_node_ms} ms over node + true)`,
      verify.target,
      verify.met,
    );
  }
  if (verifyMonorepo) {
    row(
      `4b. \`vouch verify\` of a check running \`true\` over ${verifyMonorepo.files.toLocaleString('en')} files of the monorepo`,
      ms(verifyMonorepo.vouch),
      `node -e 0: ${ms(verifyMonorepo.reference)}; git status -uno: ${ms(verifyMonorepo.uno)}`,
      `**${verifyMonorepo.over_budget_ms > 0 ? '+' : ''}${verifyMonorepo.over_budget_ms} ms** against node + git status -uno + 40 ms (${verifyMonorepo.budget_ms} ms)`,
      verifyMonorepo.target,
      verifyMonorepo.met,
    );
  }
  if (verifyRootGlobs) {
    row(
      `4c. \`vouch verify\` of a check running \`true\` over ${verifyRootGlobs.files.toLocaleString('en')} files, globs from the root, ${verifyRootGlobs.dirs.toLocaleString('en')} folders`,
      ms(verifyRootGlobs.vouch),
      `node -e 0: ${ms(verifyRootGlobs.reference)}; git status -uno: ${ms(verifyRootGlobs.uno)}`,
      `**${verifyRootGlobs.over_budget_ms > 0 ? '+' : ''}${verifyRootGlobs.over_budget_ms} ms** against node + git status -uno + 40 ms (${verifyRootGlobs.budget_ms} ms)`,
      verifyRootGlobs.target,
      verifyRootGlobs.met,
    );
  }
  if (ledger) {
    row(
      `5. \`vouch status\` with ${ledger.receipts.toLocaleString('en')} receipts`,
      `${ms(ledger.vouch)}; **${ledger.bytes_per_receipt} bytes/receipt**`,
      `few receipts: ${ms(ledger.reference)}; node -e 0: ${ms(ledger.node)}`,
      `**+${ledger.added_by_ledger_ms} ms** for the big ledger; ${ledger.over_node_ms} ms over node`,
      ledger.target,
      typeof ledger.met === 'object' ? `${yes(ledger.met.status)} (50 ms); ${yes(ledger.met.bytes)} (1 KB)` : yes(ledger.met),
    );
  }
  if (startup) {
    row(
      '6. `vouch --version`',
      ms(startup.vouch),
      `node -e 0: ${ms(startup.reference)}`,
      `**+${startup.added_ms} ms** (status, 1 file: +${startup.status_added_ms} ms)`,
      startup.target,
      startup.met,
    );
  }
  if (hooks) {
    row(
      '7. Stop hook with a fresh PASS (monorepo, 4 checks)',
      ms(hooks.stop),
      `git status: ${ms(hooks.reference)}`,
      `**${hooks.ratio}x** git status`,
      hooks.stop_target,
      hooks.stop_met,
    );
    row('8. PreToolUse hook (an Edit)', ms(hooks.pre), `node -e 0: ${ms(hooks.node)}`, `**+${hooks.pre_added_ms} ms**`, hooks.pre_target, hooks.pre_met);
  }
  if (hermetic) {
    row(
      `9. \`vouch verify\` of a hermetic check running \`true\` over ${hermetic.files.toLocaleString('en')} files (${(hermetic.bytes / 2 ** 20).toFixed(1)} MiB copied)`,
      ms(hermetic.vouch),
      `${hermetic.reference.name}: ${ms(hermetic.reference)}`,
      `**${hermetic.added_ms > 0 ? '+' : ''}${hermetic.added_ms} ms**`,
      hermetic.target,
      hermetic.met,
    );
    row(
      '10. `vouch checks --trace` of the same check, not hermetic (strace)',
      ms(hermetic.trace),
      `${hermetic.reference.name}: ${ms(hermetic.reference)}`,
      `**${hermetic.trace_added_ms > 0 ? '+' : ''}${hermetic.trace_added_ms} ms**`,
      'reported (a diagnosis, never on a hook path)',
      'n/a',
    );
  }
  if (parallel) {
    row(
      `11. Stop owing 3 relevant checks (200 ms CPU + 300 ms wait each), side by side (${parallel.jobs} at once)`,
      ms(parallel.vouch),
      `${parallel.reference.name}: ${ms(parallel.reference)}`,
      `**${parallel.ratio}x** (${parallel.saved_ms} ms saved)`,
      parallel.target,
      parallel.met,
    );
  }
  return `## vouch benchmark, ${results.started.slice(0, 16).replace('T', ' ')} UTC

Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, ${machine.os}; Node ${machine.node}; ${machine.git}; ${machine.openssl}.
Load average before/after: ${machine.load_before.join(' ')} / ${machine.load_after?.join(' ') ?? '?'}.${machine.dropped_env?.length ? ` Measured without ${machine.dropped_env.join(', ')} (set on this machine; it adds a fixed cost to every node start).` : ''} Each row alternates vouch with its reference; median (min–max) of ${results.runs} runs (cold rows: fewer).

| measure | vouch | reference | result | target | met |
|---|---|---|---|---|---|
${rows.join('\n')}
${ledger ? `\nLedger: ${ledger.receipts.toLocaleString('en')} receipts written through \`SqliteLedger.appendReceipts\` in batches of 10,000 in ${ledger.fill_seconds} s (${ledger.fill_per_second.toLocaleString('en')}/s); ${(ledger.ledger_bytes / 2 ** 20).toFixed(1)} MiB.\n` : ''}`;
}
