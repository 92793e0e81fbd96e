import { mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { identitiesOf, movedBetween } from './run-identity.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-identity-')));
  dirs.push(root);
  for (const name of ['a.js', 'b.js', 'c.js', 'd.js', 'e.js']) writeFileSync(join(root, name), `${name}\n`);
  symlinkSync('e.js', join(root, 'link.js'));
  return root;
}

/** Longer than the kernel's coarse timestamp tick, so that a write moves ctime. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 25));

describe('movedBetween', () => {
  it('names the files rewritten with the same bytes, renamed over, gone, or reached through a link whose target was rewritten; a read moves nothing', async () => {
    const root = tree();
    const paths = ['a.js', 'b.js', 'c.js', 'd.js', 'link.js'];
    const before = identitiesOf(root, paths, false);
    await tick();
    readFileSync(join(root, 'a.js'));
    writeFileSync(join(root, 'b.js'), 'b.js\n');
    writeFileSync(join(root, 'c.tmp'), 'c.js\n');
    renameSync(join(root, 'c.tmp'), join(root, 'c.js'));
    rmSync(join(root, 'd.js'));
    writeFileSync(join(root, 'e.js'), 'e.js\n');
    expect(movedBetween(before, identitiesOf(root, paths, false))).toEqual(['b.js', 'c.js', 'd.js', 'link.js']);
  });
});
