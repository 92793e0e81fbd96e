import { describe, expect, it } from 'vitest';
import { parseSpec } from './load.js';

const load = (yaml: string) => parseSpec(Buffer.from(yaml), '/ws/vouch.yaml', '/ws');

const base = (check: string) => `version: 1\nchecks:\n  - id: t\n    run: ["npm", "test"]\n    sources: ["src/**"]\n${check}`;

describe('parseSpec: every error is located and says what was expected', () => {
  it.each([
    [
      'a plain-string command',
      'version: 1\nchecks:\n  - id: t\n    run: "npm test"\n    sources: ["src/**"]\n',
      'vouch.yaml:4:10',
      /plain-string command is refused/,
      /argv list/,
    ],
    ['an unknown key, with a suggestion', base('    timout: 5\n'), 'vouch.yaml:6:5', /unknown key "timout" \(did you mean "timeout"\?\)/, /one of: id, run/],
    ['a timeout out of range', base('    timeout: 0\n'), 'vouch.yaml:6:14', /at least 1/, /1 to 3600/],
    ['an absolute glob', base('    tests: ["/etc/passwd"]\n'), 'vouch.yaml:6:13', /absolute/, /workspace-relative glob/],
    ['a glob leaving the workspace', base('    tests: ["../x/**"]\n'), 'vouch.yaml:6:13', /"\.\."/, /workspace-relative/],
    ['an absolute cwd', base('    cwd: /tmp\n'), 'vouch.yaml:6:10', /absolute/, /workspace-relative directory/],
    ['a bad regex', base('    expect: {regex: "("}\n'), 'vouch.yaml:6:21', /not a valid regular expression/, /JavaScript regular expression/],
    ['an unknown tier', base('    tier: captain\n'), 'vouch.yaml:6:11', /must be "leaf" or "lane"/, /leaf, lane/],
    ['a bad id', 'version: 1\nchecks:\n  - id: "-x"\n    run: [a]\n    sources: [s]\n', 'vouch.yaml:3:9', /wrong format/, /check id/],
    ['a missing run', 'version: 1\nchecks:\n  - id: t\n    sources: [s]\n', 'vouch.yaml:3:5', /missing required key "run"/, /argv/],
    ['no scope at all', 'version: 1\nchecks:\n  - id: t\n    run: [a]\n', 'vouch.yaml:3:5', /declares no scope/, /sources, tests or artifacts/],
    ['a wrong version', 'version: 2\nchecks: []\n', 'vouch.yaml:1:10', /must be 1/, /version/],
    [
      'a duplicate id',
      'version: 1\nchecks:\n  - {id: t, run: [a], sources: [s]}\n  - {id: t, run: [b], sources: [s]}\n',
      'vouch.yaml:4:10',
      /duplicate check id "t"/,
      /unique/,
    ],
    ['invalid YAML', 'version: 1\nchecks: [\n', 'vouch.yaml:3:1', /./, /valid YAML/],
    ['a duplicate key', 'version: 1\nversion: 1\nchecks: []\n', 'vouch.yaml:2:1', /unique/i, /valid YAML/],
    ['an env name that is not a name', base('    env: ["A B"]\n'), 'vouch.yaml:6:11', /wrong format/, /environment variable names/],
    ['shell: true with an argv list', base('    shell: true\n'), 'vouch.yaml:4:10', /must be one string/, /string/],
    ['an unknown gate mode', `${base('')}gate: {on_stop: maybe}\n`, 'vouch.yaml:6:17', /must be "verify" or "require"/, /verify \(default/],
    [
      'a gate key misspelt',
      `${base('')}gate: {max_block: 2}\n`,
      'vouch.yaml:6:8',
      /unknown key "max_block" \(did you mean "max_blocks"\?\)/,
      /on_stop, max_blocks, budget_seconds, require_remote, require_box/,
    ],
    ['a gate budget out of range', `${base('')}gate: {budget_seconds: 0}\n`, 'vouch.yaml:6:24', /at least 1/, /1 to 3600/],
    ['a protect glob leaving the workspace', `${base('')}protect: ["../other/**"]\n`, 'vouch.yaml:6:11', /"\.\."/, /workspace-relative glob/],
    ['an absolute protect glob', `${base('')}protect: ["/etc/**"]\n`, 'vouch.yaml:6:11', /absolute/, /workspace-relative glob/],
    ['an absolute input glob', base('    inputs: ["/etc/npmrc"]\n'), 'vouch.yaml:6:14', /absolute/, /workspace-relative glob/],
    ['an input glob leaving the workspace', base('    inputs: ["../package.json"]\n'), 'vouch.yaml:6:14', /"\.\."/, /workspace-relative glob/],
    ['an input glob under ~', base('    inputs: ["~/.npmrc"]\n'), 'vouch.yaml:6:14', /absolute/, /workspace-relative glob/],
  ])('%s', (_name, yaml, where, message, expected) => {
    const result = load(yaml);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('spec_invalid');
    const problem = result.error.more?.find((p) => message.test(p.message));
    expect(problem, JSON.stringify(result.error.more, null, 2)).toBeDefined();
    expect(problem!.where).toBe(where);
    expect(problem!.expected).toMatch(expected);
  });

  it('reports what it found as its YAML type: a number as a number, a boolean as a boolean, a string as a string', () => {
    const number = load(base('    timeout: 99999\n'));
    expect(!number.ok && number.error.more?.[0]?.found).toBe(99999);
    const boolean = load(base('    timeout: true\n'));
    expect(!boolean.ok && boolean.error.more?.[0]?.found).toBe(true);
    const quotedNumber = load(base('    timeout: "5"\n'));
    expect(!quotedNumber.ok && quotedNumber.error.more?.[0]?.found).toBe('5');
    const list = load(base('    timeout: [1, 2]\n'));
    expect(!list.ok && list.error.more?.[0]?.found).toBe('[1, 2]');
  });

  it('reports every problem, not just the first', () => {
    const result = load('version: 1\nchecks:\n  - id: a\n    run: "x"\n    timeout: 0\n    bogus: 1\n');
    expect(!result.ok && result.error.more?.length).toBeGreaterThanOrEqual(2);
  });

  it("counts every problem when one check's shape is wrong and another's rules are broken, in the file's order", () => {
    // checks[1]'s timeout is a shape error; checks[0]'s string run and absolute glob are rule errors of a well-shaped check.
    const result = load(
      'version: 1\nchecks:\n  - id: a\n    run: "x"\n    sources: ["/abs"]\n  - id: b\n    timeout: 0\n    run: ["true"]\n    sources: ["s"]\n',
    );
    if (result.ok) throw new Error('expected problems');
    expect(result.error.message).toContain('(3 problems)');
    expect(result.error.more?.map((p) => p.where)).toEqual(['vouch.yaml:4:10', 'vouch.yaml:5:15', 'vouch.yaml:7:14']);
  });
});

describe('parseSpec: a valid spec', () => {
  it('applies defaults', () => {
    const result = load(base(''));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const check = result.value.checks[0]!;
    expect(check).toMatchObject({ cwd: '.', timeout: 120, shell: false, block: true, tier: null, allowMissing: false, expect: { kind: 'exit', code: 0 } });
    expect(check.proves).toBe('`npm test` exited 0 on the declared scope.');
    expect(result.value.excerptBytes).toBe(4096);
    expect(result.value.gate).toEqual({ onStop: 'verify', maxBlocks: 3, budgetSeconds: 120, requireRemote: false, requireBox: false });
    expect(result.value.protect).toEqual([]);
  });

  it('reads gate: and protect:, normalising the globs', () => {
    const result = load(`${base('')}gate: {on_stop: require, max_blocks: 5, budget_seconds: 30}\nprotect: ["./test/**", "fixtures/golden.json"]\n`);
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    expect(result.value.gate).toEqual({ onStop: 'require', maxBlocks: 5, budgetSeconds: 30, requireRemote: false, requireBox: false });
    expect(result.value.protect).toEqual(['test/**', 'fixtures/golden.json']);
  });

  it('gives the same definition digest when globs are reordered, and another when argv changes', () => {
    const a = load('version: 1\nchecks:\n  - {id: t, run: [x, y], sources: [a, b]}\n');
    const b = load('version: 1\nchecks:\n  - {id: t, run: [x, y], sources: [b, a], proves: other words, block: false}\n');
    const c = load('version: 1\nchecks:\n  - {id: t, run: [y, x], sources: [a, b]}\n');
    if (!a.ok || !b.ok || !c.ok) throw new Error('expected valid specs');
    expect(a.value.checks[0]!.definitionDigest).toBe(b.value.checks[0]!.definitionDigest);
    expect(a.value.checks[0]!.definitionDigest).not.toBe(c.value.checks[0]!.definitionDigest);
  });

  it('reads inputs: normalised, in the definition digest as a set; a check without inputs keeps the digest it had before the field existed', async () => {
    const { definitionDigest } = await import('./definition.js');
    const none = load('version: 1\nchecks:\n  - {id: t, run: [x], sources: [a]}\n');
    const empty = load('version: 1\nchecks:\n  - {id: t, run: [x], sources: [a], inputs: []}\n');
    const some = load('version: 1\nchecks:\n  - {id: t, run: [x], sources: [a], inputs: ["./package.json", "**/conftest.py"]}\n');
    const reordered = load('version: 1\nchecks:\n  - {id: t, run: [x], sources: [a], inputs: ["**/conftest.py", "package.json"]}\n');
    if (!none.ok || !empty.ok || !some.ok || !reordered.ok) throw new Error('expected valid specs');
    expect(some.value.checks[0]!.inputs).toEqual(['package.json', '**/conftest.py']);
    expect(none.value.checks[0]!.inputs).toEqual([]);
    // The digest a check without inputs had before `inputs` existed (a definition frozen in a card has no field at all).
    const { inputs: _inputs, ...frozen } = none.value.checks[0]!;
    expect(none.value.checks[0]!.definitionDigest).toBe(definitionDigest(frozen));
    expect(empty.value.checks[0]!.definitionDigest).toBe(none.value.checks[0]!.definitionDigest);
    expect(some.value.checks[0]!.definitionDigest).not.toBe(none.value.checks[0]!.definitionDigest);
    expect(reordered.value.checks[0]!.definitionDigest).toBe(some.value.checks[0]!.definitionDigest);
  });

  it('hashes the exact bytes, so a comment changes the spec hash', () => {
    const a = load(base(''));
    const b = load(`${base('')}# a comment\n`);
    if (!a.ok || !b.ok) throw new Error('expected valid specs');
    expect(a.value.sha256).not.toBe(b.value.sha256);
  });
});
