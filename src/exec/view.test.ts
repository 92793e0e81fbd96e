import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execPolicy } from '../spec/normalize.js';
import { execView } from './view.js';

function tree() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-view-')));
  const root = join(base, 'ws');
  mkdirSync(join(root, '.vouch'), { recursive: true });
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'vouch.yaml'), 'version: 1\n');
  return { root, env: { HOME: join(base, 'home'), VOUCH_HOME: join(base, 'vh') } };
}

describe('execView: the writable paths against what vouches', () => {
  it('holds what vouches read-only inside a writable ".", and lists what vouches that is not there yet', () => {
    const { root, env } = tree();
    const view = execView(execPolicy({}), root, env, []);
    expect(view.ok).toBe(true);
    if (!view.ok) return;
    expect(view.value.writable).toEqual([{ as: '.', path: root }]);
    const held = view.value.held.map((entry) => entry.path);
    expect(held).toContain(join(root, 'vouch.yaml'));
    expect(held).toContain(join(root, '.vouch'));
    expect(view.value.absent.map((entry) => entry.path)).toContain(join(root, '.claude'));
  });

  it('refuses a writable path inside what vouches, naming it', () => {
    const { root, env } = tree();
    const view = execView(execPolicy({ writable: ['src', '.vouch/x'] }), root, env, []);
    expect(view).toEqual({ ok: false, error: { reason: 'writable_vouches', index: 0, writable: '.vouch/x', vouches: "vouch's ledger and state (.vouch/)" } });
  });

  it('attack: a writable path that is a symlink into .vouch/ is refused by where it leads', () => {
    const { root, env } = tree();
    symlinkSync('.vouch', join(root, 'out'));
    const view = execView(execPolicy({ writable: ['out'] }), root, env, []);
    expect(view.ok).toBe(false);
  });

  it('a protect: path inside a writable one is held too', () => {
    const { root, env } = tree();
    mkdirSync(join(root, 'test'));
    const view = execView(execPolicy({ writable: ['.'] }), root, env, ['test/**']);
    expect(view.ok && view.value.held.map((entry) => entry.path)).toContain(join(root, 'test'));
  });
});
