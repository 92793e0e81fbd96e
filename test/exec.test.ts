import { chmodSync, copyFileSync, existsSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rows } from './helpers/ledger-db.js';
import { Rig } from './helpers/rig.js';

/**
 * `vouch exec -- CMD`, the per-command sandbox, driven through the real CLI
 * with the real bubblewrap: what it BLOCKs before running, what the sandbox
 * holds when the line does not show it, and the exec receipt on the ledger.
 */
const SPEC = (exec: string) => `version: 1
checks:
  - {id: t, run: ["true"], sources: ["src/**"]}
exec:
${exec}
`;

const BLOCKED = 77;

async function workspace(exec = '  deny: [wget]'): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'a\n' });
  await rig.spec(SPEC(exec));
  return rig;
}

/** The exec entries of the ledger, parsed. */
function execEntries(rig: Rig): Record<string, any>[] {
  return rows(rig)
    .filter((row) => row.kind === 'exec')
    .map((row) => JSON.parse(row.body) as Record<string, any>);
}

describe('vouch exec', () => {
  it('ALLOWs echo: the output passes through, VERIFIED exit 0 with the receipt id, an ALLOWED exec entry with the output digest', async () => {
    const rig = await workspace();
    const ran = await rig.run(['exec', '--', 'echo', 'hello']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe('hello\n');
    expect(ran.stderr).toMatch(/^VERIFIED exit 0 · receipt [0-9a-z]{8}/m);
    const [entry] = execEntries(rig);
    expect(entry).toMatchObject({ kind: 'exec', decision: 'ALLOWED', argv: ['echo', 'hello'], exit_code: 0, cwd: rig.root, files_written: [] });
    // sha256("hello\n")
    expect(entry!.stdout_sha256).toBe('5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03');
    expect(entry!.policy.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("passes the command's own exit code through, and records it", async () => {
    const rig = await workspace();
    const ran = await rig.run(['exec', '--', 'sh', '-c', 'exit 3']);
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain('VERIFIED exit 3');
    expect(execEntries(rig)[0]).toMatchObject({ decision: 'ALLOWED', exit_code: 3 });
  });

  it('BLOCKs a write to vouch.yaml before running it, and records BLOCKED', async () => {
    const rig = await workspace();
    const before = rig.read('vouch.yaml');
    const ran = await rig.run(['exec', '--', 'sh', '-c', 'echo pwned > vouch.yaml']);
    expect(ran.code).toBe(BLOCKED);
    expect(ran.stderr).toContain('BLOCKED: write to vouch.yaml');
    expect(rig.read('vouch.yaml')).toBe(before);
    expect(execEntries(rig)[0]).toMatchObject({ decision: 'BLOCKED', exit_code: null, findings: [{ reason: 'writes_vouching', path: 'vouch.yaml' }] });
  });

  it('BLOCKs curl under network: false, naming the host', async () => {
    const rig = await workspace();
    const ran = await rig.run(['exec', '--', 'curl', '-s', 'https://example.com/x']);
    expect(ran.code).toBe(BLOCKED);
    expect(ran.stderr).toContain('BLOCKED: network to example.com not in exec.network');
    expect(execEntries(rig)[0]).toMatchObject({ decision: 'BLOCKED', findings: [{ reason: 'network_off', program: 'curl', host: 'example.com' }] });
  });

  it('the sandbox has no network under network: false, whatever the line hides', async () => {
    const rig = await workspace();
    // /proc/net/dev lists the interfaces of the reader's own network namespace.
    rig.script('probe.sh', "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    const ran = await rig.run(['exec', '--', './probe.sh']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout.trim().split(/\s+/)).toEqual(['lo']);
  });

  it('names the files the command wrote, with their digests', async () => {
    const rig = await workspace();
    const ran = await rig.run(['exec', '--', 'sh', '-c', 'printf b > src/b.txt && rm src/a.txt']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(execEntries(rig)[0]!.files_written).toEqual([
      { path: 'src/a.txt', sha256: null },
      // sha256("b")
      { path: 'src/b.txt', sha256: '3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d' },
    ]);
  });

  it('audit mode records the finding and runs the command, the sandbox still holding what vouches', async () => {
    const rig = await workspace('  mode: audit');
    const before = rig.read('vouch.yaml');
    const ran = await rig.run(['exec', '--', 'sh', '-c', 'echo pwned > vouch.yaml']);
    expect(ran.stderr).toContain('AUDIT: write to vouch.yaml');
    expect(ran.code).not.toBe(0);
    expect(rig.read('vouch.yaml')).toBe(before);
    expect(execEntries(rig)[0]).toMatchObject({ decision: 'ALLOWED', findings: [{ reason: 'writes_vouching' }] });
  });

  it('refuses to run before the spec is allowed', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n', 'vouch.yaml': SPEC('  mode: enforce') });
    const ran = await rig.run(['exec', '--', 'echo', 'x']);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain('nothing was run');
  });

  it('refuses a writable path that is what vouches, naming it', async () => {
    const rig = await workspace('  writable: [".vouch/x"]');
    const ran = await rig.run(['exec', '--', 'echo', 'x']);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain('exec.writable[0] ".vouch/x"');
  });

  it('refuses a host list for exec.network with what to write instead', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n', 'vouch.yaml': SPEC('  network: [example.com]') });
    const checked = await rig.run(['checks']);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain('exec.network: a list of hosts is not supported yet');
  });

  it('a path outside the writable ones is read-only', async () => {
    const rig = await workspace('  writable: ["out"]');
    mkdirSync(rig.path('out'));
    rig.script('w.sh', 'echo x > out/ok && echo y > src/a.txt');
    const again = await rig.run(['exec', '--', './w.sh']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/Read-only file system/);
    expect(rig.read('out/ok')).toBe('x\n');
    expect(rig.read('src/a.txt')).toBe('a\n');
  });

  it('attack: a symlink in a writable path pointing at vouch.yaml, written by a script the line does not show', async () => {
    const rig = await workspace('  writable: ["out"]');
    mkdirSync(rig.path('out'));
    symlinkSync('../vouch.yaml', rig.path('out/link'));
    rig.script('w.sh', 'echo pwned >> out/link');
    const before = rig.read('vouch.yaml');
    const ran = await rig.run(['exec', '--', './w.sh']);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toMatch(/Read-only file system/);
    expect(rig.read('vouch.yaml')).toBe(before);
  });

  it('attack: sh -c hiding the write behind another shell and a variable: the sandbox holds vouch.yaml and .vouch/', async () => {
    const rig = await workspace();
    const before = rig.read('vouch.yaml');
    const ran = await rig.run(['exec', '--', 'sh', '-c', 'f=vouch; bash -c "echo pwned > $f.yaml; echo x > .vouch/ledger.db"']);
    expect(ran.code).not.toBe(0);
    expect(rig.read('vouch.yaml')).toBe(before);
    // The ledger still reads, and holds this exec's receipt.
    expect(execEntries(rig)).toHaveLength(1);
  });

  it('attack: a hard link to vouch.yaml made inside the sandbox, by a script, then written: links do not cross the read-only mount', async () => {
    const rig = await workspace();
    rig.script('l.sh', 'ln vouch.yaml h && echo pwned >> h');
    const before = rig.read('vouch.yaml');
    const ran = await rig.run(['exec', '--', './l.sh']);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toMatch(/cross-device link/);
    expect(rig.read('vouch.yaml')).toBe(before);
    expect(existsSync(rig.path('h'))).toBe(false);
  });

  // base64 (coreutils) stands for any denied program: it is on every machine the tests run on, curl need not be.
  it("attack: a denied program reached through the agent's own PATH, under another name (a link, and a copy)", async () => {
    const rig = await workspace('  deny: [base64]');
    const real = realpathSync('/usr/bin/base64');
    mkdirSync(rig.path('bin'));
    symlinkSync(real, rig.path('bin/fetch'));
    copyFileSync(real, rig.path('bin/ls'));
    chmodSync(rig.path('bin/ls'), 0o755);
    const path = `${rig.path('bin')}:${process.env.PATH}`;
    const linked = await rig.run(['exec', '--', 'fetch', 'src/a.txt'], { env: { PATH: path } });
    expect(linked.code).toBe(BLOCKED);
    expect(linked.stderr).toContain('BLOCKED: fetch is base64, which is in exec.deny');
    expect(linked.stdout).toBe('');
    const copied = await rig.run(['exec', '--', 'sh', '-c', 'ls src/a.txt'], { env: { PATH: path } });
    expect(copied.code).toBe(BLOCKED);
    expect(copied.stderr).toContain('BLOCKED: ls is base64, which is in exec.deny');
    // The same PATH without the deny list runs the copy: the block came from what the program is.
    const plain = await workspace('  deny: []');
    mkdirSync(plain.path('bin'));
    copyFileSync(real, plain.path('bin/ls'));
    chmodSync(plain.path('bin/ls'), 0o755);
    const allowed = await plain.run(['exec', '--', 'ls', 'src/a.txt'], { env: { PATH: `${plain.path('bin')}:${process.env.PATH}` } });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toBe('YQo=\n');
  });

  it('a denied program the line does not show is not there inside the sandbox', async () => {
    const rig = await workspace('  deny: [base64]');
    rig.script('w.sh', 'echo hi | base64');
    const ran = await rig.run(['exec', '--', './w.sh']);
    expect(ran.code).not.toBe(0);
    expect(ran.stdout).not.toContain('aGkK');
  });

  it('kills the command after exec.timeout, exit 124', async () => {
    const rig = await workspace('  timeout: 1');
    const ran = await rig.run(['exec', '--', 'sleep', '30']);
    expect(ran.code).toBe(124);
    expect(execEntries(rig)[0]).toMatchObject({ timed_out: true, exit_code: 124 });
  });

  it('a path that vouches and did not exist, made by the command, is BLOCKED after the fact and named', async () => {
    const rig = await workspace();
    expect(existsSync(rig.path('.codex'))).toBe(false);
    rig.script('w.sh', 'mkdir .codex && echo "{}" > .codex/hooks.json');
    const ran = await rig.run(['exec', '--', './w.sh']);
    expect(ran.code).toBe(BLOCKED);
    expect(ran.stderr).toContain('BLOCKED:');
    expect(ran.stderr).toContain('.codex');
    expect(execEntries(rig)[0]).toMatchObject({ decision: 'BLOCKED', findings: [{ reason: 'made_vouching' }] });
  });
});
