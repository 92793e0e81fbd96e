import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig, type RunResult } from './helpers/rig.js';

/*
 * Git never runs a program a repository names. The gate and verify ask git
 * about the work tree (HEAD, dirty, what a `git reset --hard` would change),
 * and a repository's .git/config and .gitattributes can name programs git
 * runs on the way: core.fsmonitor, clean, smudge and process filters (git
 * status re-hashes a racily clean file through the clean filter), hooks
 * (post-index-change when status refreshes the index), an external diff,
 * a textconv, a pager. Each case names a program that writes a marker file;
 * after `vouch verify`, a Stop and a guarded `git reset --hard`, no marker
 * exists (src/core/git-command.ts). Plain git, in the same repository, does
 * run it: the repository is live.
 */

const SESSION = 'sess-git';
const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

interface Setup {
  readonly name: string;
  /** git config entries, given the marker program's path. */
  readonly config: (program: string) => [string, string][];
  readonly attributes?: string;
  /** A plain command that runs the program, to show the repository is live. */
  readonly live: readonly string[];
  /** Written before the live command (a diff needs a difference). */
  readonly edit?: boolean;
}

const SETUPS: readonly Setup[] = [
  { name: 'core.fsmonitor', config: (p) => [['core.fsmonitor', p]], live: ['git', 'status'] },
  {
    name: 'a clean filter (racily clean files re-hashed)',
    config: (p) => [
      ['filter.x.clean', p],
      ['filter.x.smudge', p],
      ['filter.x.required', 'true'],
    ],
    attributes: '* filter=x\n',
    live: ['git', 'status'],
  },
  { name: 'a process filter', config: (p) => [['filter.y.process', p]], attributes: '*.js filter=y\n', live: ['git', 'status'] },
  { name: 'a post-index-change hook (core.hooksPath)', config: (p) => [['core.hooksPath', dirname(p) + '/hooks']], live: ['git', 'status'] },
  { name: 'an external diff', config: (p) => [['diff.external', p]], live: ['git', 'diff'], edit: true },
  { name: 'a textconv', config: (p) => [['diff.z.textconv', p]], attributes: '* diff=z\n', live: ['git', 'diff'], edit: true },
  // A pager runs only on a terminal: `script` gives plain git one.
  {
    name: 'a pager',
    config: (p) => [
      ['core.pager', p],
      ['pager.status', p],
      ['pager.diff', p],
    ],
    live: ['script', '-qec', 'git status', '/dev/null'],
  },
];

function hook(rig: Rig, event: string, payload: Record<string, unknown>): Promise<RunResult> {
  const stdin = JSON.stringify({ session_id: SESSION, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload });
  return rig.run(['hook', 'claude-code', event], { stdin });
}

/** A committed repository whose config names `program`, which appends to `marker` and passes its input through. */
async function repository(setup: Setup): Promise<{ rig: Rig; marker: string }> {
  const rig = new Rig().write({ 'src/a.js': 'exports.a = 1;\n', 'test/a.test.js': "require('../src/a.js');\n" });
  const base = dirname(rig.root);
  const marker = join(base, 'ran');
  const program = join(base, 'program.sh');
  writeFileSync(program, `#!/bin/sh\necho "$0 $*" >> ${marker}\nexec cat\n`);
  chmodSync(program, 0o755);
  mkdirSync(join(base, 'hooks'));
  for (const name of ['post-index-change', 'reference-transaction', 'pre-commit', 'post-checkout']) {
    writeFileSync(join(base, 'hooks', name), `#!/bin/sh\necho "hook ${name}" >> ${marker}\n`);
    chmodSync(join(base, 'hooks', name), 0o755);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: rig.root, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  await rig.spec('version: 1\nchecks:\n  - {id: tests, run: ["node", "test/a.test.js"], sources: ["src/**"], tests: ["test/**"]}\nprotect: ["test/**"]\n');
  git('add', '-A');
  git('commit', '-qm', 'base');
  // Now the repository names the program.
  for (const [key, value] of setup.config(program)) git('config', key, value);
  if (setup.attributes !== undefined) rig.write({ '.gitattributes': setup.attributes });
  // Racily clean: same bytes, a new mtime, so git must read the content again.
  const later = new Date(Date.now() + 5000);
  utimesSync(rig.path('src/a.js'), later, later);
  return { rig, marker };
}

describe('git never runs a program a repository names', () => {
  for (const setup of SETUPS) {
    it(`attack: ${setup.name} in the repository: after vouch verify, a Stop and a guarded \`git reset --hard\`, it never ran`, async () => {
      const { rig, marker } = await repository(setup);
      if (setup.edit === true) rig.write({ 'src/a.js': 'exports.a = 3;\n' });
      // Live: plain git runs it here.
      try {
        execFileSync(setup.live[0]!, setup.live.slice(1), { cwd: rig.root, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
      } catch {
        // A required filter that cannot speak the process protocol makes git fail, after it ran.
      }
      expect(existsSync(marker), `plain git ${setup.live.join(' ')} should run the program`).toBe(true);
      rmSync(marker);

      const ran = await rig.run(['verify', '--json']);
      expect(ran.json().checks[0]).toMatchObject({ status: 'PASS' });
      // git was asked: the receipt records HEAD.
      const receipt = (await rig.run(['show', ran.json().checks[0].receipt, '--json'])).json().receipt;
      expect(receipt.git.head).toMatch(/^[0-9a-f]{40}$/);
      expect(existsSync(marker), existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe(false);

      const guard = await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'git reset --hard HEAD' }, tool_use_id: 't1' });
      expect(guard.code).toBe(0);
      rig.write({ 'src/a.js': 'exports.a = 2;\n' });
      await hook(rig, 'PostToolUse', {
        tool_name: 'Write',
        tool_input: { file_path: rig.path('src/a.js'), content: 'x' },
        tool_response: {},
        tool_use_id: 't2',
      });
      const stop = await hook(rig, 'Stop', { stop_hook_active: false });
      expect(stop.code, stop.stderr).toBe(0);
      expect(existsSync(marker), existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe(false);
    });
  }
});
