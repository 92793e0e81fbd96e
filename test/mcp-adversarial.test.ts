import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { McpSession, textOf } from './helpers/mcp.js';
import { Rig } from './helpers/rig.js';

// Every check in this spec would leave a marker file if it ran.
const SPEC = `version: 1
checks:
  - {id: tests, run: ["touch", "ran-tests"], sources: ["src/**"]}
  - {id: lint, run: ["touch", "ran-lint"], sources: ["src/**"]}
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.ts': 'a\n' });
  await rig.spec(SPEC);
  return rig;
}

const A_RECEIPT_ID = '01m8p2jffc0311w2pke0r6fea9';

/** Valid arguments for each tool, to which the attacks add a key. */
const VALID: Record<string, Record<string, unknown>> = {
  vouch_checks: {},
  vouch_status: { check_ids: ['tests'] },
  vouch_verify: { check_ids: ['tests'] },
  vouch_receipt: { receipt_id: A_RECEIPT_ID },
  vouch_dispatch_report: { dispatch_id: A_RECEIPT_ID, claim: { summary: 'done', deliverables: [] } },
};

/** What an agent might try to slip in beside the ids. */
const SMUGGLED: Record<string, unknown> = {
  argv: ['sh', '-c', 'touch pwned'],
  command: 'touch pwned',
  run: ['touch', 'pwned'],
  cwd: '/',
  dir: '/tmp',
  env: { PATH: '/tmp/evil' },
  path: '/etc/passwd',
  paths: ['src/a.ts'],
  glob: '**/*',
  sources: ['/etc/**'],
  shell: true,
};

function assertNothingRan(rig: Rig): void {
  expect(existsSync(rig.path('pwned'))).toBe(false);
  expect(existsSync(rig.path('ran-tests'))).toBe(false);
  expect(existsSync(rig.path('ran-lint'))).toBe(false);
}

describe('vouch mcp refuses anything but ids', () => {
  it.each(Object.keys(VALID))('%s: an argv, a command, a cwd, env, a path or a glob beside the ids is refused and nothing runs', async (tool) => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    for (const [key, value] of Object.entries(SMUGGLED)) {
      const result = await mcp.call(tool, { ...VALID[tool], [key]: value });
      expect(result.isError, `${tool} with ${key}`).toBe(true);
      expect(textOf(result), `${tool} with ${key}`).toContain(`Unrecognized key: "${key}"`);
      expect(result.structuredContent).toBeUndefined();
    }
    assertNothingRan(rig);
    expect((await rig.run(['log', '--json'])).json()).toEqual([]);
    expect(mcp.errors).toEqual([]);
  });

  it.each([
    ['a path', ['../../etc/passwd']],
    ['an absolute path', ['/bin/sh']],
    ['a glob', ['src/**']],
    ['a wildcard', ['*']],
    ['a shell command', ['tests; touch pwned']],
    ['a command substitution', ['$(touch pwned)']],
    ['an option', ['-C']],
    ['a trailing newline', ['tests\n']],
    ['an empty id', ['']],
    ['a string instead of a list', 'tests'],
    ['an argv as the list', ['sh', '-c', 'touch pwned']],
    ['an object', [{ id: 'tests', run: ['touch', 'pwned'] }]],
    ['no ids at all', []],
  ])('vouch_verify and vouch_status refuse %s in check_ids', async (_what, ids) => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    for (const tool of ['vouch_verify', 'vouch_status']) {
      const result = await mcp.call(tool, { check_ids: ids });
      expect(result.isError, tool).toBe(true);
      expect(textOf(result), tool).toMatch(/Input validation error|no check/);
    }
    assertNothingRan(rig);
  });

  it.each([['../../etc/passwd'], ['/etc/passwd'], ['*'], ['01M8P2JFFC'], ['abc'], ['01m8p2jffc0311w2pke0r6fea9x']])(
    'vouch_receipt refuses %j as a receipt id',
    async (id) => {
      const mcp = await McpSession.connect(await workspace());
      const result = await mcp.call('vouch_receipt', { receipt_id: id });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('Input validation error');
    },
  );

  it('vouch_verify without check_ids is refused: the agent must name what it wants verified', async () => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    const result = await mcp.call('vouch_verify', {});
    expect(result.isError).toBe(true);
    assertNothingRan(rig);
  });

  it('a check id that does not exist is an error result naming the configured ids, and the server keeps serving', async () => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    for (const tool of ['vouch_verify', 'vouch_status']) {
      const result = await mcp.call(tool, { check_ids: ['lint', 'tets'] });
      expect(result.isError, tool).toBe(true);
      const text = textOf(result);
      expect(text).toContain('no check "tets" in vouch.yaml (did you mean "tests"?)');
      expect(text).toContain('expected: one of: tests, lint');
      expect(text).toContain('code: check_not_found');
    }
    // Nothing was run for the valid id either: the whole call was refused.
    assertNothingRan(rig);
    const receipt = await mcp.call('vouch_receipt', { receipt_id: A_RECEIPT_ID });
    expect(receipt.isError).toBe(true);
    expect(textOf(receipt)).toContain('code: receipt_not_found');
    const status = await mcp.call('vouch_status', {});
    expect(status.isError).toBeFalsy();
    expect((status.structuredContent as any).checks.map((c: any) => c.reason)).toEqual(['no_receipt', 'no_receipt']);
  });
});

describe('vouch mcp trusts the spec exactly as the CLI does', () => {
  it('a spec nobody allowed gives spec_not_allowed results and runs nothing', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a\n', 'vouch.yaml': SPEC });
    const mcp = await McpSession.connect(rig);
    const verify = await mcp.call('vouch_verify', { check_ids: ['tests', 'lint'] });
    expect(verify.isError).toBeFalsy();
    const data = verify.structuredContent as any;
    expect(data).toMatchObject({ ok: false, ran: false, spec: { trust: 'never' } });
    expect(data.checks.map((c: any) => [c.id, c.status, c.reason, c.receipt])).toEqual([
      ['tests', 'UNKNOWN', 'spec_not_allowed', null],
      ['lint', 'UNKNOWN', 'spec_not_allowed', null],
    ]);
    expect(textOf(verify)).toContain('Nothing was run.');
    expect(textOf(verify)).toContain('`vouch allow`');
    assertNothingRan(rig);
    expect(existsSync(rig.path('.vouch/ledger.db'))).toBe(false);

    const status = (await mcp.call('vouch_status', {})).structuredContent as any;
    expect(status.spec.trust).toBe('never');
    expect(status.checks.map((c: any) => c.reason)).toEqual(['spec_not_allowed', 'spec_not_allowed']);
    expect(((await mcp.call('vouch_checks', {})).structuredContent as any).spec.trust).toBe('never');
  });

  it('reads the spec on every call: an edit made while the server runs is not allowed, and runs nothing, until a person allows it', async () => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    expect(((await mcp.call('vouch_verify', { check_ids: ['tests'] })).structuredContent as any).checks[0].status).toBe('PASS');
    expect(existsSync(rig.path('ran-tests'))).toBe(true);

    // The agent (or anyone) rewrites the command behind the same id.
    rig.write({ 'vouch.yaml': SPEC.replace('["touch", "ran-tests"]', '["touch", "pwned"]') });
    const edited = (await mcp.call('vouch_verify', { check_ids: ['tests'] })).structuredContent as any;
    expect(edited).toMatchObject({ ran: false, spec: { trust: 'changed' } });
    expect(edited.checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'spec_not_allowed' });
    expect(existsSync(rig.path('pwned'))).toBe(false);
    const status = (await mcp.call('vouch_status', { check_ids: ['tests'] })).structuredContent as any;
    expect(status.checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'spec_not_allowed' });

    // A person allows the new spec; the running server sees it and its new check without a restart.
    rig.write({ 'vouch.yaml': `${SPEC}  - {id: added, run: ["true"], sources: ["src/**"]}\n` });
    expect((await rig.run(['allow'])).code).toBe(0);
    const checks = (await mcp.call('vouch_checks', {})).structuredContent as any;
    expect(checks.checks.map((c: any) => c.id)).toEqual(['tests', 'lint', 'added']);
    expect(checks.spec.trust).toBe('allowed');
    expect(((await mcp.call('vouch_verify', { check_ids: ['added'] })).structuredContent as any).checks[0].status).toBe('PASS');
  });

  it('a spec broken while the server runs is an error result with its location, and the server keeps serving', async () => {
    const rig = await workspace();
    const mcp = await McpSession.connect(rig);
    rig.write({ 'vouch.yaml': 'version: 1\nchecks:\n  - {id: tests, run: "make test", sources: ["src/**"]}\n' });
    const result = await mcp.call('vouch_status', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('vouch.yaml:3:22: checks[0].run: a plain-string command is refused');
    expect(textOf(result)).toContain('expected: an argv list such as ["npm", "test"]');
    expect(textOf(result)).toContain('code: spec_invalid');
    rig.write({ 'vouch.yaml': SPEC });
    expect((await mcp.call('vouch_status', {})).isError).toBeFalsy();
  });
});
