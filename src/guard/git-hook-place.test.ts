import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitConfigPrint } from './git-hook-place.js';
import { gitHookPlace } from './wiring.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository with its own HOME (no global config of this machine's), and the env git and vouch see. */
function repo(): { root: string; env: NodeJS.ProcessEnv } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-hook-place-')));
  made.push(dir);
  const root = join(dir, 'ws');
  mkdirSync(join(dir, 'home'), { recursive: true });
  mkdirSync(root);
  const env = { PATH: process.env.PATH, HOME: join(dir, 'home') };
  execFileSync('git', ['init', '-q'], { cwd: root, env });
  return { root, env };
}

/** An earlier answer that git would never give: if it comes back, git was not asked. */
const planted = (print: string | null) => ({ prePush: '/planted/pre-push', print });

describe("where git's hooks are: git's answer, reused while nothing that could move it changed", () => {
  it('an unchanged repository reuses the earlier answer (no git process at the Stop)', () => {
    const { root, env } = repo();
    const first = gitHookPlace(root, env);
    expect(first.prePush).toBe(join(root, '.git', 'hooks', 'pre-push'));
    expect(first.print).not.toBeNull();
    expect(gitHookPlace(root, env, planted(first.print))).toEqual(planted(first.print));
  });

  it("attack: core.hooksPath set in the repository's config mid-session: git is asked again and the new place is what is watched", () => {
    const { root, env } = repo();
    const first = gitHookPlace(root, env);
    execFileSync('git', ['config', 'core.hooksPath', 'elsewhere'], { cwd: root, env });
    const after = gitHookPlace(root, env, planted(first.print));
    expect(after.prePush).toBe(join(root, 'elsewhere', 'pre-push'));
  });

  it('attack: core.hooksPath set in the global config (~/.gitconfig) mid-session: git is asked again', () => {
    const { root, env } = repo();
    const first = gitHookPlace(root, env);
    writeFileSync(join(env.HOME!, '.gitconfig'), '[core]\n\thooksPath = /tmp/nowhere\n');
    expect(gitHookPlace(root, env, planted(first.print)).prePush).toBe('/tmp/nowhere/pre-push');
  });

  it('attack: an environment variable that moves git (GIT_CONFIG_GLOBAL, GIT_DIR) changes the print', () => {
    const { root, env } = repo();
    const print = gitConfigPrint(root, env);
    expect(gitConfigPrint(root, { ...env, GIT_CONFIG_GLOBAL: '/tmp/other' })).not.toBe(print);
    expect(gitConfigPrint(root, { ...env, GIT_DIR: '/tmp/other' })).not.toBe(print);
    expect(gitConfigPrint(root, { ...env })).toBe(print);
  });

  it('attack: a config that includes another file is never reused (the included file is not followed): git is always asked', () => {
    const { root, env } = repo();
    appendFileSync(join(root, '.git', 'config'), '[include]\n\tpath = ../../other.gitconfig\n');
    expect(gitConfigPrint(root, env)).toBeNull();
    expect(gitHookPlace(root, env, planted(null)).prePush).toBe(join(root, '.git', 'hooks', 'pre-push'));
  });

  it('attack: a nearer .git made inside a workspace below the top of the repository changes the print', () => {
    const { root, env } = repo();
    const sub = join(root, 'pkg');
    mkdirSync(sub);
    const print = gitConfigPrint(sub, env);
    execFileSync('git', ['init', '-q'], { cwd: sub, env });
    expect(gitConfigPrint(sub, env)).not.toBe(print);
  });

  it('outside any repository there is no print, and git answers there is no hook', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-hook-place-none-')));
    made.push(dir);
    expect(gitConfigPrint(dir, { HOME: dir, GIT_CEILING_DIRECTORIES: tmpdir() })).toBeNull();
  });
});
