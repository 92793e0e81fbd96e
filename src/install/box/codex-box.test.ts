import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { installEdit, uninstallEdit } from '../edit.js';
import { codexBoxIntent } from './codex-box.js';
import { readOnlySet } from './read-only.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function place() {
  const base = mkdtempSync(join(tmpdir(), 'vouch-codex-box-edit-'));
  dirs.push(base);
  const root = join(base, 'ws');
  const env = { HOME: join(base, 'home'), VOUCH_HOME: join(base, 'vouch') };
  return { base, root, env, home: env.VOUCH_HOME, config: join(base, 'config.toml') };
}

/** A user's own config.toml: a comment, top-level keys, tables. */
const USER_CONFIG = `# my Codex settings
model = "gpt-5.5"

[projects."/src/app"]
trust_level = "trusted"

[mcp_servers.docs]
command = "docs-mcp"
`;

describe("vouch's Codex box in config.toml", () => {
  it('is a profile selected at the top of the file, above every table, and uninstall restores the file byte for byte', () => {
    const at = place();
    writeFileSync(at.config, USER_CONFIG);
    const intent = codexBoxIntent(at.config, readOnlySet(at.root, at.env, ['test/**']).paths);
    expect(installEdit(intent, { home: at.home }).kind).toBe('written');
    const written = readFileSync(at.config, 'utf8');
    expect(written.startsWith('approval_policy = "never"\ndefault_permissions = "vouch"\n# my Codex settings\n')).toBe(true);
    const doc = parse(written) as Record<string, any>;
    expect(doc.model).toBe('gpt-5.5');
    expect(doc.permissions.vouch.filesystem).toMatchObject({
      ':root': 'read',
      ':project_roots': { '.': 'write' },
      [join(at.root, '.vouch')]: 'read',
      [join(at.root, 'vouch.yaml')]: 'read',
      [join(at.root, 'test')]: 'read',
      [at.home]: 'read',
    });
    expect(installEdit(intent, { home: at.home }).kind).toBe('unchanged');
    expect(uninstallEdit(intent, { home: at.home })).toMatchObject({ kind: 'written', how: 'restored' });
    expect(readFileSync(at.config, 'utf8')).toBe(USER_CONFIG);
  });

  it('a file changed since install loses exactly what vouch added: its two lines and its table', () => {
    const at = place();
    writeFileSync(at.config, USER_CONFIG);
    const intent = codexBoxIntent(at.config, readOnlySet(null, at.env, []).paths);
    installEdit(intent, { home: at.home });
    writeFileSync(at.config, `${readFileSync(at.config, 'utf8')}\n[features]\nweb_search = true\n`);
    expect(uninstallEdit(intent, { home: at.home })).toMatchObject({ kind: 'written', how: 'removed' });
    const left = parse(readFileSync(at.config, 'utf8')) as Record<string, any>;
    expect(left.default_permissions).toBeUndefined();
    expect(left.approval_policy).toBeUndefined();
    expect(left.permissions).toBeUndefined();
    expect(left).toMatchObject({ model: 'gpt-5.5', features: { web_search: true }, mcp_servers: { docs: { command: 'docs-mcp' } } });
  });

  it("a person's own approval_policy is never overwritten: the edit is refused whole, with the steps by hand", () => {
    const at = place();
    const mine = 'approval_policy = "on-request"\n';
    writeFileSync(at.config, mine);
    const outcome = installEdit(codexBoxIntent(at.config, readOnlySet(at.root, at.env, []).paths), { home: at.home });
    expect(outcome).toMatchObject({ kind: 'refused', refusal: { code: 'conflict' } });
    expect(readFileSync(at.config, 'utf8')).toBe(mine);
  });
});
