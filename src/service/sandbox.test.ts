import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox, type Sandbox } from './sandbox.js';

const KEY = '-----BEGIN PRIVATE KEY-----\nnot-a-real-key\n-----END PRIVATE KEY-----\n';
const usable = existsSync('/usr/bin/bwrap') && detectSandbox().wrapFor !== undefined;
if (!usable) {
  if (process.env.CI) throw new Error('bubblewrap is required in CI (.ci/run installs it)');
  process.stderr.write('!!! bubblewrap not installed or not usable: the sandbox unit tests are skipped\n');
}

/** Runs `sh -c SCRIPT` the way a worker runs a check: wrapped for the job directory, in it. */
function inside(sandbox: Sandbox, jobRoot: string, script: string) {
  const argv = sandbox.wrapFor!(jobRoot)(['sh', '-c', script], jobRoot);
  return spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 20_000 });
}

describe.runIf(usable)('bubblewrap sandbox', () => {
  // Directories the sandbox binds read-only, where an operator might keep the server's home or key.
  const tag = `vouch-sandbox-test-${process.pid}-${Date.now()}`;
  const optHome = join('/opt', tag, 'home');
  const etcKeys = join('/etc', tag);
  let tmpHome: string;
  let job: string;

  beforeAll(() => {
    mkdirSync(join(optHome, 'keys'), { recursive: true });
    writeFileSync(join(optHome, 'keys', 'server.key'), KEY, { mode: 0o600 });
    // A home under /tmp whose key file is a link to a file under /etc.
    mkdirSync(etcKeys, { recursive: true });
    writeFileSync(join(etcKeys, 'server.key'), KEY, { mode: 0o600 });
    tmpHome = mkdtempSync(join(tmpdir(), 'vouch-sandbox-home-'));
    mkdirSync(join(tmpHome, 'keys'));
    symlinkSync(join(etcKeys, 'server.key'), join(tmpHome, 'keys', 'server.key'));
    job = mkdtempSync(join(tmpdir(), 'vouch-sandbox-job-'));
  });
  afterAll(() => {
    for (const dir of [join('/opt', tag), etcKeys, tmpHome, job]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the setup is real: without hiding, a check under /opt could read the key (this is the attack)', () => {
    const open = detectSandbox();
    const read = inside(open, job, `cat ${join(optHome, 'keys', 'server.key')}`);
    expect(read.stdout).toContain('PRIVATE KEY');
  });

  it('key theft: a VOUCH_HOME under /opt (bound read-only) is empty inside the sandbox; its key cannot be read', () => {
    const sandbox = detectSandbox({ hide: [optHome, join(optHome, 'keys', 'server.key')] });
    const read = inside(sandbox, job, `cat ${join(optHome, 'keys', 'server.key')}`);
    expect(read.status).not.toBe(0);
    expect(read.stdout).not.toContain('PRIVATE KEY');
    expect(inside(sandbox, job, `ls -A ${optHome}`).stdout).toBe('');
    // The rest of /opt is still there.
    expect(inside(sandbox, job, `test -d /opt/${tag}`).status).toBe(0);
  });

  it('key theft: a key file linked to /etc is empty inside, whether read through the link target or the home', () => {
    const sandbox = detectSandbox({ hide: [tmpHome, join(tmpHome, 'keys', 'server.key')] });
    const direct = inside(sandbox, job, `cat ${join(etcKeys, 'server.key')}`);
    expect(direct.stdout).not.toContain('PRIVATE KEY');
    const viaHome = inside(sandbox, job, `cat ${join(tmpHome, 'keys', 'server.key')}`);
    expect(viaHome.stdout).not.toContain('PRIVATE KEY');
    // Other files of /etc are readable.
    expect(inside(sandbox, job, 'test -r /etc/passwd').status).toBe(0);
  });

  it('key theft: a job directory inside the hidden VOUCH_HOME (TMPDIR there) is writable, the key beside it still hidden', () => {
    const nested = join(optHome, 'jobs', 'j1');
    mkdirSync(nested, { recursive: true });
    const sandbox = detectSandbox({ hide: [optHome] });
    expect(inside(sandbox, nested, 'echo ok > made-here && test -s made-here').status).toBe(0);
    expect(inside(sandbox, nested, `cat ${join(optHome, 'keys', 'server.key')}`).stdout).not.toContain('PRIVATE KEY');
  });

  it('writes: /etc and /opt are read-only, /tmp is a private tmpfs that leaves nothing on the host, the job directory is writable', () => {
    const sandbox = detectSandbox({ hide: [optHome] });
    const marker = `vouch-sandbox-escape-${process.pid}`;
    expect(inside(sandbox, job, `echo x > /etc/${marker}`).status).not.toBe(0);
    expect(existsSync(`/etc/${marker}`)).toBe(false);
    expect(inside(sandbox, job, `echo x > /opt/${marker}`).status).not.toBe(0);
    expect(existsSync(`/opt/${marker}`)).toBe(false);
    expect(inside(sandbox, job, `echo x > /tmp/${marker} && test -s /tmp/${marker}`).status).toBe(0);
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
    expect(inside(sandbox, job, 'echo ok > made-here && test -s made-here').status).toBe(0);
    expect(existsSync(join(job, 'made-here'))).toBe(true);
  });
});
