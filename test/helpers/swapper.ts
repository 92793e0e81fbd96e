import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * A real process the agent could have left running: it waits for the
 * check's node process (found by `marker` in its command line, once it
 * handles SIGUSR2), writes
 * `content` over every file `target` names (a glob's first match, resolved
 * when the check is found), signals the check (SIGUSR2) to read on, and
 * once the check has exited puts the original bytes back. The check reads
 * only after the swap, so nothing depends on timing. It prints "swapped
 * PATH" and "restored" as it goes.
 */
export class Swapper {
  private constructor(
    private readonly child: ChildProcess,
    private output: string,
  ) {}

  static start(cwd: string, marker: string, target: string, content: string): Swapper {
    const child = spawn(process.execPath, ['-e', SCRIPT], {
      cwd,
      // The marker travels in the environment, not in this process's own command line, where it would find itself.
      env: { ...process.env, SWAP_MARKER: marker, SWAP_TARGET: target, SWAP_CONTENT: content },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const swapper = new Swapper(child, '');
    child.stdout.on('data', (chunk: Buffer) => (swapper.output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (swapper.output += chunk.toString()));
    return swapper;
  }

  /** Waits for it to finish (it exits once the check is gone and the file restored) and returns what it printed. */
  async done(): Promise<string> {
    if (this.child.exitCode === null) await once(this.child, 'exit');
    return this.output;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

const SCRIPT = `
const fs = require('node:fs');
const path = require('node:path');
const marker = process.env.SWAP_MARKER;
function find() {
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      if (fs.readFileSync('/proc/' + pid + '/comm', 'utf8').trim() !== 'node') continue;
      if (!fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').includes(marker)) continue;
      // Only once it handles SIGUSR2 (bit 12 of SigCgt): a signal before that would kill it.
      const caught = /^SigCgt:\\s*([0-9a-f]+)$/m.exec(fs.readFileSync('/proc/' + pid + '/status', 'utf8'));
      if (caught && (BigInt('0x' + caught[1]) & (1n << 11n)) !== 0n) return Number(pid);
    } catch {}
  }
  return undefined;
}
function resolveTarget(pattern) {
  if (!pattern.includes('*')) return pattern;
  const parts = pattern.split('/');
  let dirs = [pattern.startsWith('/') ? '/' : '.'];
  if (pattern.startsWith('/')) parts.shift();
  for (const part of parts) {
    dirs = dirs.flatMap((dir) => {
      if (!part.includes('*')) return [path.join(dir, part)];
      const re = new RegExp('^' + part.replace(/[.]/g, '\\\\.').replace(/\\*/g, '.*') + '$');
      try { return fs.readdirSync(dir).filter((n) => re.test(n)).map((n) => path.join(dir, n)); } catch { return []; }
    });
  }
  return dirs[0];
}
const deadline = Date.now() + 40000;
const wait = () => {
  const pid = find();
  if (pid === undefined) {
    if (Date.now() > deadline) { console.log('check never seen'); process.exit(2); }
    return setTimeout(wait, 5);
  }
  const file = resolveTarget(process.env.SWAP_TARGET);
  if (file === undefined) { console.log('no target'); process.kill(pid, 'SIGUSR2'); process.exit(3); }
  const original = fs.readFileSync(file);
  fs.writeFileSync(file, process.env.SWAP_CONTENT);
  console.log('swapped ' + file);
  process.kill(pid, 'SIGUSR2');
  const gone = () => {
    if (fs.existsSync('/proc/' + pid)) return setTimeout(gone, 5);
    try { fs.writeFileSync(file, original); console.log('restored'); } catch (e) { console.log('restore failed ' + e.code); }
    process.exit(0);
  };
  gone();
};
wait();
`;
