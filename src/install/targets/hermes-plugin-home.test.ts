import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pluginSource } from './hermes-plugin.js';

const self = { node: '/opt/node/bin/node', entry: '/opt/vouch/dist/cli.js' };

describe("the Hermes plugin carries install's VOUCH_HOME", () => {
  it('passes VOUCH_HOME to every vouch it starts when install ran under one, and is byte for byte as before when not', () => {
    const plain = pluginSource(self, {});
    expect(plain).not.toContain('VOUCH_HOME');
    const homed = pluginSource(self, { VOUCH_HOME: '/srv/vouch home' });
    expect(homed).toContain('VOUCH_HOME = "/srv/vouch home"');
    // Every vouch the plugin starts (a hook call, a command) gets it.
    expect(homed.match(/subprocess\.run\(/g)).toHaveLength(2);
    expect(homed.match(/env=dict\(os\.environ, (\*\*\(env or \{\}\), )?VOUCH_HOME=VOUCH_HOME\)/g)).toHaveLength(2);
    const dir = mkdtempSync(join(tmpdir(), 'vouch-plugin-'));
    try {
      writeFileSync(join(dir, 'plugin.py'), homed);
      // Python itself parses it: the two subprocess.run calls keep their arguments well formed.
      execFileSync('python3', ['-m', 'py_compile', join(dir, 'plugin.py')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
