import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectSandboxEntry, sandboxPath } from './claude-settings.js';

const root = '/work/proj';
const env = { HOME: '/home/ann' };
const project = { scope: 'project', path: join(root, '.claude', 'settings.json') } as const;

describe('projectSandboxEntry (what install writes into the project settings)', () => {
  it('a path of the workspace is relative to it, one under the home ~/, anything else absolute; the workspace itself and its parent are never relative', () => {
    expect(projectSandboxEntry(join(root, '.vouch'), root, env)).toBe('.vouch');
    expect(projectSandboxEntry(join(root, '.git', 'hooks'), root, env)).toBe('.git/hooks');
    expect(projectSandboxEntry('/home/ann/.config/vouch', root, env)).toBe('~/.config/vouch');
    expect(projectSandboxEntry('/srv/vouch-home', root, env)).toBe('/srv/vouch-home');
    expect(projectSandboxEntry('/work/proj-other/.vouch', root, env)).toBe('/work/proj-other/.vouch');
    expect(projectSandboxEntry('/home/ann', root, env)).toBe('/home/ann');
    expect(projectSandboxEntry(root, root, env)).toBe(root);
  });

  it('each entry resolves back, in the project settings, to the path it was made from, wherever the clone is', () => {
    for (const path of [join(root, '.vouch'), join(root, 'node_modules', '.bin', 'vouch'), '/home/ann/.config/vouch', '/srv/vouch-home']) {
      expect(sandboxPath(projectSandboxEntry(path, root, env), project, root, env)).toBe(path);
    }
    const clone = '/elsewhere/clone';
    expect(sandboxPath(projectSandboxEntry(join(root, '.vouch'), root, env), project, clone, env)).toBe(join(clone, '.vouch'));
  });
});
