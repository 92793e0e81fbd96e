import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the runner', () => {
  it('runs argv without a shell: metacharacters reach the program literally', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(`version: 1
checks:
  - id: literal
    run: ["node", "-e", "require('fs').writeFileSync('argv.json', JSON.stringify(process.argv.slice(1)))", "$HOME; touch pwned", "*", "\`id\`"]
    sources: ["src/**"]
`);
    const result = await rig.run(['verify', '--json']);
    expect(result.json().checks[0].status).toBe('PASS');
    expect(JSON.parse(rig.read('argv.json'))).toEqual(['$HOME; touch pwned', '*', '`id`']);
    expect(existsSync(rig.path('pwned'))).toBe(false);
  });

  it('runs each check in its own process group, apart from vouch', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    rig.script('groups.sh', 'ps -o pid=,pgid= -p $$ > pgid.txt; ps -o pgid= -p $PPID >> pgid.txt');
    await rig.spec('version: 1\nchecks:\n  - {id: g, run: ["./groups.sh"], sources: ["src/**"]}\n');
    await rig.run(['verify']);
    const [self, parentGroup] = rig.read('pgid.txt').trim().split('\n');
    const [pid, pgid] = self!.trim().split(/\s+/);
    expect(pgid).toBe(pid);
    expect(parentGroup!.trim()).not.toBe(pgid);
  });

  it('gives the check a minimal environment: a secret in the caller environment is not visible', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(`version: 1
checks:
  - id: env
    run: ["node", "-e", "require('fs').writeFileSync('env.json', JSON.stringify(process.env))"]
    env: ["PASSED_ON"]
    sources: ["src/**"]
`);
    await rig.run(['verify'], { env: { GITHUB_TOKEN: 'ghp_secretsecretsecretsecret', AWS_SECRET_ACCESS_KEY: 'x', PASSED_ON: 'yes', LC_ALL: 'C' } });
    const env = JSON.parse(rig.read('env.json')) as Record<string, string>;
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(env.VOUCH_HOME).toBeUndefined();
    expect(env.PASSED_ON).toBe('yes');
    expect(env.LC_ALL).toBe('C');
    expect(env.PATH).toBeTruthy();
    expect(env.VOUCH_CHECK_ID).toBe('env');
  });

  it('on timeout kills the whole process group, grandchildren included, and says UNKNOWN/timeout', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    // The grandchild ignores SIGTERM: only the group SIGKILL after the grace period stops it.
    rig.script('slow.sh', 'sh -c \'trap "" TERM; echo $$ > grandchild.pid; exec sleep 300\' &\nsleep 300');
    await rig.spec('version: 1\nchecks:\n  - {id: slow, run: ["./slow.sh"], timeout: 1, sources: ["src/**"]}\n');
    const result = await rig.run(['verify', '--json']);
    const check = result.json().checks[0];
    expect(check).toMatchObject({ status: 'UNKNOWN', reason: 'timeout' });
    expect(result.code).toBe(1);
    const pid = Number(rig.read('grandchild.pid'));
    await until(() => !alive(pid), 5000);
  });

  it('bounds memory when a check prints 200 MB, and keeps the hash of all of it', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: loud, run: ["head", "-c", "200000000", "/dev/zero"], sources: ["src/**"]}\n');
    const child = rig.spawn(['verify', '--json']);
    let peakKb = 0;
    const poll = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      } catch {
        // exited
      }
    }, 20);
    const { collect } = await import('./helpers/rig.js');
    const result = await collect(child);
    clearInterval(poll);
    expect(result.json().checks[0].status).toBe('PASS');
    const shown = await rig.run(['show', result.json().checks[0].receipt, '--json']);
    const stdout = shown.json().receipt.stdout;
    expect(stdout.bytes).toBe(200_000_000);
    expect(stdout.truncated).toBe(true);
    expect(stdout.excerpt.length).toBeLessThanOrEqual(4096);
    // 200 MB went through; peak RSS stays well under what holding it would take (200 MB more than Node itself):
    // the log keeps at most 16 MiB of head and of tail per stream, gzipped (measured: 142-165 MB, by load and GC timing).
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb).toBeLessThan(200 * 1024);
  });

  it('stores output excerpts redacted, while hashing the raw output', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(`version: 1
checks:
  - id: leaky
    run: ["sh", "-c", "echo 'deploying with ghp_abcdefghijklmnopqrstuvwxyz0123456789'; echo 'Authorization: Bearer abcdefghijklmnop' >&2; exit 1"]
    sources: ["src/**"]
`);
    const result = await rig.run(['verify', '--json']);
    expect(result.stdout).not.toContain('ghp_abcdefghij');
    const receipt = (await rig.run(['show', result.json().checks[0].receipt, '--json'])).json().receipt;
    expect(receipt.stdout.excerpt).toContain('[REDACTED]');
    expect(receipt.stdout.excerpt).not.toContain('ghp_');
    expect(receipt.stderr.excerpt).not.toContain('abcdefghijklmnop');
    const { createHash } = await import('node:crypto');
    expect(receipt.stdout.sha256).toBe(createHash('sha256').update('deploying with ghp_abcdefghijklmnopqrstuvwxyz0123456789\n').digest('hex'));
  });

  it.each([
    ['a cwd that is not a directory: UNKNOWN/cwd_invalid', '{id: c, run: ["true"], cwd: "missing", sources: ["src/**"]}', 'UNKNOWN', 'cwd_invalid'],
    ['a check killed by a signal: FAIL/signal', '{id: c, run: ["sh", "-c", "kill -KILL $$"], sources: ["src/**"]}', 'FAIL', 'signal'],
    [
      'a regex that matched nowhere in the kept head and tail of a longer output: UNKNOWN/output_truncated, never PASS nor FAIL',
      '{id: c, run: ["sh", "-c", "head -c 3000000 /dev/zero | tr \'\\\\0\' x; echo; echo NEEDLE; head -c 3000000 /dev/zero | tr \'\\\\0\' y"], sources: ["src/**"], expect: {regex: "^NEEDLE$"}}',
      'UNKNOWN',
      'output_truncated',
    ],
  ])('records %s', async (_name, check, status, reason) => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(`version: 1\nchecks:\n  - ${check}\n`);
    const result = await rig.run(['verify', '--json']);
    expect(result.json().checks[0], result.stderr).toMatchObject({ status, reason });
  });

  it('keeps excerpt_bytes of each output stream in the receipt', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nexcerpt_bytes: 16\nchecks:\n  - {id: c, run: ["sh", "-c", "printf \'%0100d\' 0"], sources: ["src/**"]}\n');
    const result = await rig.run(['verify', '--json']);
    const receipt = (await rig.run(['show', result.json().checks[0].receipt, '--json'])).json().receipt;
    expect(receipt.stdout.bytes).toBe(100);
    expect(receipt.stdout.excerpt.length).toBeGreaterThan(0);
    expect(receipt.stdout.excerpt.length).toBeLessThanOrEqual(16 + 32);
    expect(receipt.stdout.excerpt.replace(/[^0]/g, '').length).toBeLessThanOrEqual(16);
  });

  it('records a command that cannot start as UNKNOWN/spawn_error', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: ghost, run: ["no-such-program-vouch"], sources: ["src/**"]}\n');
    const result = await rig.run(['verify', '--json']);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'spawn_error' });
  });

  it('stops the check and records UNKNOWN/interrupted when vouch gets SIGINT', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    rig.script('wait.sh', 'echo $$ > started.pid\nsleep 300');
    await rig.spec('version: 1\nchecks:\n  - {id: long, run: ["./wait.sh"], sources: ["src/**"]}\n');
    const child = rig.spawn(['verify', '--json']);
    await until(() => existsSync(rig.path('started.pid')));
    child.kill('SIGINT');
    const { collect } = await import('./helpers/rig.js');
    const result = await collect(child);
    expect(result.code).toBe(130);
    expect(alive(Number(rig.read('started.pid')))).toBe(false);
    const log = (await rig.run(['log', '--json'])).json();
    expect(log[0]).toMatchObject({ check_id: 'long', verdict: 'UNKNOWN', reason: 'interrupted' });
  });
});

describe('progress', () => {
  it('shows which check runs and for how long on a terminal (stderr is a TTY), and nothing on a pipe', async () => {
    const { execFileSync } = await import('node:child_process');
    const { CLI } = await import('./helpers/rig.js');
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: slowish, run: ["sleep", "0.6"], sources: ["src/**"]}\n');
    // `script` gives the command a pseudo-terminal, as an interactive shell would.
    const tty = execFileSync('script', ['-qec', `${process.execPath} ${CLI} verify`, '/dev/null'], { cwd: rig.root, env: rig.env() }).toString();
    expect(tty).toMatch(/… slowish \d+ms/);
    const piped = await rig.run(['verify']);
    expect(piped.stderr).not.toContain('…');
  });
});
