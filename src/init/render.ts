import type { Proposal } from './proposal.js';

/** vouch.yaml text for the proposals (at least one), with comments that say what to review. */
export function renderSpec(proposals: readonly Proposal[]): string {
  const lines = [
    '# vouch.yaml: the checks that decide when work is done.',
    '# Review every command before `vouch allow`: they run on this machine with your permissions.',
    '# A file matched by both `tests` and `sources` is a test. `vouch checks --files` lists what each check covers.',
    '# `inputs` are the files that decide what a check runs (manifests, lockfiles, configs), present or not:',
    '# `vouch allow` pins them, and one that appears, changes or goes away holds the check until allowed again.',
    '# Reference: `vouch checks --help`, schema: `vouch schema`.',
    'version: 1',
  ];
  const list = (values: readonly string[]) => `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
  const protect = protectedTests(proposals);
  if (protect.length > 0) {
    lines.push(
      '# protect: the agent may not write the tests that judge it (else it can skip them all and pass); remove a glob to let it edit those tests.',
      `protect: ${list(protect)}`,
    );
  }
  lines.push('checks:');
  for (const p of proposals) {
    lines.push(`  # from ${p.from}`, `  - id: ${p.id}`, `    run: ${list(p.run)}`);
    if (p.timeout !== undefined) lines.push(`    timeout: ${p.timeout}`);
    if (p.sources.length) lines.push(`    sources: ${list(p.sources)}`);
    if (p.tests.length) lines.push(`    tests: ${list(p.tests)}`);
    if (p.inputs.length) lines.push(`    inputs: ${list(p.inputs)}`);
    if (p.exclude.length) lines.push(`    exclude: ${list(p.exclude)}`);
    if (p.expectRegex !== undefined) lines.push(`    expect: {regex: ${JSON.stringify(p.expectRegex)}}`);
    if (!p.block) lines.push('    block: false');
    lines.push(`    proves: ${JSON.stringify(p.proves)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The test folders the proposals cover (globs that take a folder whole)
 * and the test files they name exactly (`test.js`, `tests.c`); test files
 * matched by a name pattern beside the code (`x.test.ts`) stay writable,
 * so the agent can still add tests there.
 */
export function protectedTests(proposals: readonly Proposal[]): string[] {
  return [...new Set(proposals.flatMap((p) => p.tests).filter((glob) => glob.endsWith('/**') || !/[*?{}[\]]/.test(glob)))].sort();
}
