import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Session } from './session.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(spec: string): { root: string; env: NodeJS.ProcessEnv } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-session-')));
  made.push(base);
  writeFileSync(join(base, 'vouch.yaml'), spec);
  return { root: base, env: { HOME: base, VOUCH_HOME: join(base, 'home') } };
}

const SPEC = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["*.txt"]}\n';

describe('Session: one invocation reads each spec once and owns each ledger it opens', () => {
  it('reads the spec once however often it is asked, and a spec that does not validate is a value, not a throw, until spec() is asked', async () => {
    const at = workspace(SPEC);
    const session = new Session({ env: at.env, cwd: at.root });
    const first = await session.spec();
    expect(await session.spec()).toBe(first);
    expect(await session.specIfValid()).toBe(first);
    expect(session.trace.line({ VOUCH_TRACE: '1' })).toMatch(/spec_reads=1\b/);
    await session.close();

    const bad = workspace('version: 1\nchecks: 5\n');
    const other = new Session({ env: bad.env, cwd: bad.root });
    expect((await other.load()).ok).toBe(false);
    expect(await other.specIfValid()).toBeNull();
    await expect(other.spec()).rejects.toThrow();
    await other.close();
  });

  it('read() never creates a ledger; write() creates it once and hands the same one back; close() closes what it opened', async () => {
    const at = workspace(SPEC);
    const session = new Session({ env: at.env, cwd: at.root });
    expect(await session.read()).toBeUndefined();
    expect(existsSync(join(at.root, '.vouch', 'ledger.db'))).toBe(false);
    const ledger = await session.write();
    expect(await session.write()).toBe(ledger);
    expect(existsSync(join(at.root, '.vouch', 'ledger.db'))).toBe(true);
    await session.close();
    const again = new Session({ env: at.env, cwd: at.root });
    expect(await again.read()).toBeDefined();
    await again.close();
  });

  it("the engine context carries the invocation's home, environment, clock and signal with the workspace, spec and actor", async () => {
    const at = workspace(SPEC);
    const now = () => new Date('2026-01-01T00:00:00Z');
    const signal = new AbortController().signal;
    const session = new Session({ env: at.env, cwd: at.root, now, signal });
    const spec = await session.spec();
    const ctx = session.engine(session.workspace(), spec, 'cli', { cwdIsRoot: true });
    expect(ctx).toMatchObject({ home: join(at.root, 'home'), env: at.env, now, signal, spec, actor: 'cli', cwdIsRoot: true });
    expect(ctx.workspace.root).toBe(at.root);
    await session.close();
  });
});
