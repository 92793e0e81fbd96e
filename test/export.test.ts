import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../src/core/digest.js';
import { canonicalize } from '../src/core/jcs.js';
import { bundleText, payloadOf, readBundle, signWithKeyFile, tamper } from './helpers/dsse.js';
import { rows } from './helpers/ledger-db.js';
import { Rig } from './helpers/rig.js';

const SPEC = `version: 1
signing_key: default
checks:
  - {id: t, run: ["true"], sources: ["src/**"], tests: ["test/**"]}
  - {id: build, run: ["sh", "-c", "mkdir -p out && cat src/a.ts > out/a.js"], sources: ["src/**"], artifacts: ["out/a.js"]}
  - {id: failing, run: ["false"], sources: ["src/**"], block: false}
`;

async function exported(runs = 1): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.ts': 'export const a = 1;\n', 'test/a.test.ts': 'test\n' });
  expect((await rig.run(['keys', 'generate'])).code).toBe(0);
  await rig.spec(SPEC);
  for (let i = 0; i < runs; i++) await rig.run(['verify', '-j', '1']); // one after another: the tests read the receipts in vouch.yaml's order
  return rig;
}

async function exportBundle(rig: Rig, ...args: string[]): Promise<string> {
  const result = await rig.run(['export', '--format', 'intoto', '--out', 'bundle.intoto.jsonl', ...args]);
  expect(result.code, result.stderr).toBe(0);
  return rig.path('bundle.intoto.jsonl');
}

const verifyReceipt = async (rig: Rig, ...args: string[]) => {
  const result = await rig.run(['verify-receipt', ...args, '--json']);
  return { code: result.code, report: result.json(), stderr: result.stderr };
};

describe('vouch export --format intoto', () => {
  it('writes the latest receipt of every check as a DSSE envelope of a canonical in-toto Statement v1', async () => {
    const rig = await exported();
    const envelopes = readBundle(await exportBundle(rig));
    expect(envelopes).toHaveLength(3);
    const keyid = (await rig.run(['keys', 'list', '--json'])).json()[0].keyid;
    const ledger = rows(rig);
    for (const envelope of envelopes) {
      expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
      expect(envelope.signatures).toEqual([{ keyid, sig: expect.stringMatching(/^[A-Za-z0-9+/]{86}==$/) }]);
      const text = Buffer.from(envelope.payload, 'base64').toString('utf8');
      expect(canonicalize(JSON.parse(text))).toBe(text);
    }
    const [t, build, failing] = envelopes.map(payloadOf);

    // No artifacts: test-result, subjects = the files covered.
    expect(t).toMatchObject({
      _type: 'https://in-toto.io/Statement/v1',
      predicateType: 'https://in-toto.io/attestation/test-result/v0.1',
      subject: [
        { name: 'src/a.ts', digest: { sha256: sha256('export const a = 1;\n') } },
        { name: 'test/a.test.ts', digest: { sha256: sha256('test\n') } },
      ],
      predicate: { result: 'PASSED', passedTests: ['t'], failedTests: [], warnedTests: [] },
    });
    expect(t.predicate.configuration[0]).toEqual({ name: 'vouch.yaml', digest: { sha256: sha256(readFileSync(rig.path('vouch.yaml'))) } });
    expect(t.predicate.configuration[1]).toMatchObject({ name: `vouch-receipt:${ledger[0]!.id}`, digest: { sha256: ledger[0]!.hash } });

    // Artifacts: link v0.3, subjects = artifacts, materials = sources, exit code as return-value, the chain's prev_hash.
    expect(build).toMatchObject({
      predicateType: 'https://in-toto.io/attestation/link/v0.3',
      subject: [{ name: 'out/a.js', digest: { sha256: sha256('export const a = 1;\n') } }],
      predicate: {
        name: 'build',
        command: ['sh', '-c', 'mkdir -p out && cat src/a.ts > out/a.js'],
        materials: [{ name: 'src/a.ts', digest: { sha256: sha256('export const a = 1;\n') } }],
        byproducts: { 'return-value': 0, verdict: 'PASS', reason: 'ok', receipt: { id: ledger[1]!.id, sha256: ledger[1]!.hash, prev_hash: ledger[0]!.hash } },
      },
    });

    // A failure exports as what it is.
    expect(failing.predicate).toMatchObject({ result: 'FAILED', passedTests: [], failedTests: ['failing'] });
    expect(failing.predicate.configuration[1].annotations).toMatchObject({ verdict: 'FAIL', reason: 'exit_code', exit_code: 1 });
  });

  it('selects receipts by id, by --check (latest), and by --check with --since (all since then)', async () => {
    const rig = await exported(3);
    const ids = rows(rig)
      .filter((r) => r.check_id === 't')
      .map((r) => r.id);
    const byId = readBundle(await exportBundle(rig, ids[0]!.slice(0, 10)));
    expect(byId.map((e) => payloadOf(e).predicate.configuration[1].name)).toEqual([`vouch-receipt:${ids[0]}`]);
    const latest = readBundle(await exportBundle(rig, '--check', 't'));
    expect(latest.map((e) => payloadOf(e).predicate.configuration[1].name)).toEqual([`vouch-receipt:${ids[2]}`]);
    const since = readBundle(await exportBundle(rig, '--check', 't', '--since', '1h'));
    expect(since.map((e) => payloadOf(e).predicate.configuration[1].name)).toEqual(ids.map((id) => `vouch-receipt:${id}`));
    const all = readBundle(await exportBundle(rig, '--since', '2000-01-01'));
    expect(all).toHaveLength(9);
  });

  it('writes to stdout without --out', async () => {
    const rig = await exported();
    const result = await rig.run(['export', '--check', 'build']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(result.stdout).payloadType).toBe('application/vnd.in-toto+json');
  });

  it('refuses to launder unsigned receipts, or receipts signed by another key, into signed envelopes', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.test.ts': 't' });
    await rig.spec(SPEC.replace('signing_key: default\n', ''));
    await rig.run(['verify', 't']);
    await rig.run(['keys', 'generate']);
    const unsigned = await rig.run(['export', '--signing-key', 'default', '--check', 't', '--out', 'b.jsonl', '--json']);
    expect(unsigned.code).toBe(2);
    expect(unsigned.json().error.code).toBe('export_refused');
    expect(unsigned.stderr).toContain('it was recorded unsigned');

    await rig.run(['verify', 't'], { env: { VOUCH_SIGNING_KEY: 'default' } });
    await rig.run(['keys', 'generate', '--name', 'other']);
    const foreign = await rig.run(['export', '--signing-key', 'other', '--check', 't']);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain('it was signed by another key');
    expect((await rig.run(['export', '--signing-key', 'default', '--check', 't'])).code).toBe(0);
  });

  it.each([
    [['--format', 'spdx'], 'usage', /unknown export format "spdx"/],
    [['--since', 'yesterday'], 'usage', /--since expects a time/],
    [['--since', '2999-01-01'], 'export_refused', /no receipt matches the selection/],
    [['01abcdef', '--check', 't'], 'usage', /not both/],
  ])('refuses %j with exit 2', async (args, code, message) => {
    const rig = await exported();
    const result = await rig.run(['export', ...args, '--out', 'b.jsonl', '--json']);
    expect(result.code).toBe(2);
    expect(result.json().error.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it('refuses to leave out a check that never ran, rather than export a bundle that looks complete', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'test/a.test.ts': 't' });
    await rig.run(['keys', 'generate']);
    await rig.spec(SPEC);
    await rig.run(['verify', 't']);
    const result = await rig.run(['export', '--out', 'b.jsonl', '--json']);
    expect(result.code).toBe(2);
    expect(result.json().error.code).toBe('export_refused');
    expect(result.stderr).toContain('no receipt to export for "build", "failing"');
    expect((await rig.run(['export', '--check', 't', '--out', 'b.jsonl'])).code).toBe(0);
  });

  it('needs a signing key to export (signing_key_required)', async () => {
    const rig = await exported();
    writeFileSync(rig.path('vouch.yaml'), SPEC.replace('signing_key: default\n', ''));
    await rig.run(['allow']);
    const result = await rig.run(['export', '--out', 'b.jsonl', '--json']);
    expect(result.code).toBe(2);
    expect(result.json().error.code).toBe('signing_key_required');
    expect((await rig.run(['export', '--json'])).stderr).toContain('--json needs --out FILE');
  });
});

describe('vouch verify-receipt', () => {
  it('accepts a bundle signed by the given key and reports what each envelope says', async () => {
    const rig = await exported();
    const bundle = await exportBundle(rig);
    const hex = (await rig.run(['keys', 'export-public', '--format', 'hex'])).stdout.trim();
    const { code, report } = await verifyReceipt(rig, bundle, '--key', hex);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.envelopes.map((e: any) => [e.line, e.ok, e.predicate, e.check, e.verdict])).toEqual([
      [1, true, 'test-result', 't', 'PASS'],
      [2, true, 'link', 'build', 'PASS'],
      [3, true, 'test-result', 'failing', 'FAIL'],
    ]);
  });

  it('rejects a tampered envelope (verdict flipped, signature kept) and only that one', async () => {
    const rig = await exported();
    const envelopes = readBundle(await exportBundle(rig));
    envelopes[2] = tamper(envelopes[2]!, (s) => {
      s.predicate.result = 'PASSED';
      s.predicate.passedTests = ['failing'];
      s.predicate.failedTests = [];
    });
    writeFileSync(rig.path('tampered.jsonl'), bundleText(envelopes));
    const { code, report } = await verifyReceipt(rig, 'tampered.jsonl', '--key', 'default');
    expect(code).toBe(1);
    expect(report.envelopes.map((e: any) => [e.line, e.ok, e.findings.map((f: any) => f.code)])).toEqual([
      [1, true, []],
      [2, true, []],
      [3, false, ['signature_invalid']],
    ]);
  });

  it('rejects a good bundle under another key, and a bundle whose payload type was changed', async () => {
    const rig = await exported();
    const bundle = await exportBundle(rig, '--check', 't');
    await rig.run(['keys', 'generate', '--name', 'other']);
    expect((await verifyReceipt(rig, bundle, '--key', 'other')).report.envelopes[0].findings[0].code).toBe('signature_invalid');
    const [envelope] = readBundle(bundle);
    writeFileSync(rig.path('retyped.jsonl'), bundleText([{ ...envelope!, payloadType: 'application/json' }]));
    expect((await verifyReceipt(rig, 'retyped.jsonl', '--key', 'default')).report.envelopes[0].findings[0].code).toBe('envelope_invalid');
  });

  it('rejects a validly signed payload that is not canonical JSON (not_canonical)', async () => {
    const rig = await exported();
    const [envelope] = readBundle(await exportBundle(rig, '--check', 't'));
    const pretty = JSON.stringify(payloadOf(envelope!), null, 2);
    writeFileSync(rig.path('pretty.jsonl'), bundleText([signWithKeyFile(rig.home, 'default', pretty)]));
    const { code, report } = await verifyReceipt(rig, 'pretty.jsonl', '--key', 'default');
    expect(code).toBe(1);
    expect(report.envelopes[0].findings.map((f: any) => f.code)).toEqual(['not_canonical']);
  });

  it('--against-workspace finds covered files edited or deleted since the receipt', async () => {
    const rig = await exported();
    const bundle = await exportBundle(rig, '--check', 't', '--check', 'build');
    expect((await verifyReceipt(rig, bundle, '--key', 'default', '--against-workspace')).code).toBe(0);
    rig.write({ 'src/a.ts': 'export const a = 2;\n' });
    rmSync(rig.path('out/a.js'));
    const { code, report } = await verifyReceipt(rig, bundle, '--key', 'default', '--against-workspace');
    expect(code).toBe(1);
    expect(report.envelopes.map((e: any) => e.findings.map((f: any) => `${f.code}:${f.path}`))).toEqual([
      ['file_changed:src/a.ts'],
      ['file_changed:src/a.ts', 'file_missing:out/a.js'],
    ]);
  });

  it('--against-workspace never reads what a hostile (validly signed) statement names outside the workspace, credentials, or FIFOs', async () => {
    const rig = await exported();
    writeFileSync(join(rig.root, '..', 'outside.txt'), 'secret');
    rig.write({ '.env': 'TOKEN=x' });
    rig.symlink('../../outside.txt', 'src/link.txt');
    execFileSync('mkfifo', [rig.path('src/pipe')]);
    const names = ['../outside.txt', '/etc/passwd', '.env', 'src/link.txt', 'src/pipe', 'src/./a.ts'];
    const statement = {
      _type: 'https://in-toto.io/Statement/v1',
      subject: names.map((name) => ({ name, digest: { sha256: sha256('secret') } })),
      predicateType: 'https://in-toto.io/attestation/test-result/v0.1',
      predicate: { result: 'PASSED', configuration: [], passedTests: ['t'] },
    };
    writeFileSync(rig.path('hostile.jsonl'), bundleText([signWithKeyFile(rig.home, 'default', canonicalize(statement))]));
    const { code, report } = await verifyReceipt(rig, 'hostile.jsonl', '--key', 'default', '--against-workspace');
    expect(code).toBe(1);
    // It names no check either, so no definition here is the one it ran.
    expect(report.envelopes[0].findings.map((f: any) => `${f.code}:${f.path}`)).toEqual([
      ...names.map((name) => `file_refused:${name}`),
      'definition_changed:undefined',
    ]);
  });

  it('--against-workspace --require-pass refuses a PASS whose check is defined differently now (status says STALE definition_changed)', async () => {
    const rig = await exported();
    const bundle = await exportBundle(rig, '--check', 't', '--check', 'build');
    expect((await verifyReceipt(rig, bundle, '--key', 'default', '--against-workspace', '--require-pass')).code).toBe(0);
    // Same files, another command: the old PASS proves nothing about what `t` runs now.
    await rig.spec(SPEC.replace('{id: t, run: ["true"]', '{id: t, run: ["sh", "-c", "exit 0"]'));
    expect((await rig.run(['status', 't', '--json'])).json().checks[0]).toMatchObject({ status: 'STALE', reason: 'definition_changed' });
    const { code, report } = await verifyReceipt(rig, bundle, '--key', 'default', '--against-workspace', '--require-pass');
    expect(code).toBe(1);
    expect(report.envelopes.map((e: any) => [e.check, e.findings.map((f: any) => f.code)])).toEqual([
      ['t', ['definition_changed']],
      ['build', []],
    ]);
    expect(report.envelopes[0].findings[0].detail).toContain('check "t" is defined differently now');
    const text = await rig.run(['verify-receipt', bundle, '--key', 'default', '--against-workspace']);
    expect(text.stdout).toContain('definition_changed');
    // A check removed from vouch.yaml is no more the one that ran.
    await rig.spec(SPEC.replace(/ {2}- \{id: t,.*\n/, ''));
    const gone = await verifyReceipt(rig, bundle, '--key', 'default', '--against-workspace');
    expect(gone.report.envelopes[0].findings).toEqual([{ code: 'definition_changed', detail: 'vouch.yaml here defines no check "t"' }]);
  });

  it('--require-pass fails a signed, intact statement whose verdict is not PASS', async () => {
    const rig = await exported();
    const bundle = await exportBundle(rig, '--check', 'failing', '--check', 't');
    const { code, report } = await verifyReceipt(rig, bundle, '--key', 'default', '--require-pass');
    expect(code).toBe(1);
    expect(report.envelopes.map((e: any) => [e.check, e.findings.map((f: any) => f.code)])).toEqual([
      ['t', []],
      ['failing', ['not_pass']],
    ]);
  });

  it('reads the bundle from standard input with -', async () => {
    const rig = await exported();
    const bundle = readFileSync(await exportBundle(rig, '--check', 't'), 'utf8');
    const result = await rig.run(['verify-receipt', '-', '--key', 'default'], { stdin: bundle });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('all 1 envelope of - verify');
  });

  it.each([
    [['bundle.intoto.jsonl'], 'usage', /needs the public key to trust/],
    [['missing.jsonl', '--key', 'default'], 'bundle_invalid', /cannot read the bundle: ENOENT/],
    [['empty.jsonl', '--key', 'default'], 'bundle_invalid', /holds no envelope/],
  ])('refuses %j with exit 2', async (args, code, message) => {
    const rig = await exported();
    await exportBundle(rig, '--check', 't');
    writeFileSync(rig.path('empty.jsonl'), '\n\n');
    const result = await rig.run(['verify-receipt', ...args, '--json']);
    expect(result.code).toBe(2);
    expect(result.json().error.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });
});
