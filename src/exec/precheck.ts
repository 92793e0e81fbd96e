import { basename } from 'node:path';
import { shellLine } from '../core/quote.js';
import { guardToolUse, type GuardPlace } from '../guard/guard.js';
import { shellWrites, type ProgramUse } from '../guard/shell/writes.js';
import type { ExecPolicy } from '../spec/model.js';
import { deniedMatch, findDenied } from './programs.js';

/** Something the command line shows it would do that the policy does not let it: found before it runs. */
export type ExecFinding =
  /** A program on exec.deny, by name, by where its name leads, or by its bytes. */
  | { readonly reason: 'denied_program'; readonly program: string; readonly named: string }
  /** A program that talks to the network, under network: false. */
  | { readonly reason: 'network_off'; readonly program: string; readonly host: string | null }
  /** A write to what vouches (vouch.yaml, .vouch/, protect: paths, the gate's wiring), as the guard reads the line. */
  | { readonly reason: 'writes_vouching'; readonly path: string; readonly via: string }
  /** A person's act (`vouch allow`, `git push --no-verify`...). */
  | { readonly reason: 'person_act'; readonly act: string }
  /** A path that vouches and did not exist was made while the command ran (found after the run: a mount cannot hold what is not there). */
  | { readonly reason: 'made_vouching'; readonly path: string; readonly what: string };

/** Programs whose whole purpose is the network. git is judged by its subcommand. */
const NETWORK_PROGRAMS = new Set(['curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'telnet', 'ftp', 'http', 'https', 'aria2c', 'rsync']);
const GIT_NETWORK = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule']);

/**
 * What `vouch exec` finds in the command before it runs it: the command
 * is read as a shell line by the same reader as the guard (src/gate/shell),
 * so `sh -c '...'`, wrappers, `cd` and links made on the line are seen
 * through. This sees what a line says, never what a script it runs does:
 * the sandbox holds the rest.
 */
export function precheck(argv: readonly string[], policy: ExecPolicy, place: GuardPlace, callerPath: string | undefined): ExecFinding[] {
  const line = shellLine(argv);
  const findings: ExecFinding[] = [];
  const read = shellWrites(line, place.cwd, place.home);
  // The argv itself is a program too (shellLine quotes it, so the reader sees it as the first command).
  const denied = findDenied(policy.deny, callerPath, place.cwd);
  for (const program of read.programs) {
    const match = denied.length === 0 ? null : deniedMatch(program.name, program.dir ?? place.cwd, callerPath, denied);
    if (match) findings.push({ reason: 'denied_program', program: match.name, named: program.name });
    if (!policy.network) {
      const host = networkUse(program);
      if (host !== undefined) findings.push({ reason: 'network_off', program: basename(program.name), host });
    }
  }
  const answer = guardToolUse({ kind: 'shell', tool: 'exec', command: line }, place);
  if (answer.kind === 'deny') findings.push({ reason: 'writes_vouching', path: answer.path, via: answer.via });
  else if (answer.kind === 'deny_act') findings.push({ reason: 'person_act', act: answer.act.command });
  return findings;
}

/** The host a network program is pointed at (null: not named plainly), or undefined when the program does not use the network. */
function networkUse(program: ProgramUse): string | null | undefined {
  const name = basename(program.name);
  if (name === 'git') {
    const sub = program.args.find((arg) => arg !== null && !arg.startsWith('-'));
    if (sub === undefined || sub === null || !GIT_NETWORK.has(sub)) return undefined;
  } else if (!NETWORK_PROGRAMS.has(name)) {
    return undefined;
  }
  for (const arg of program.args) {
    if (arg === null) continue;
    const url = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^/:?#]+)/i.exec(arg);
    if (url) return url[1]!;
    const scp = /^(?:[^@/\s]+@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,}|[A-Za-z0-9-]+):/.exec(arg);
    if (scp && !arg.startsWith('-')) return scp[1]!;
    const bare = /^(?:[^@/\s]+@)?([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)$/.exec(arg);
    if (bare && !arg.startsWith('-') && name !== 'git') return bare[1]!;
  }
  return null;
}
