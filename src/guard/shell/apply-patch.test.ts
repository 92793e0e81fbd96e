import { describe, expect, it } from 'vitest';
import { codexPatchPaths, codexPatchTouches } from './apply-patch.js';

const wrap = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;

describe('codexPatchPaths: an apply_patch body read as Codex 0.171 reads it', () => {
  it.each([
    ['an update', wrap('*** Update File: src/a.ts\n@@\n-a\n+b\n'), ['src/a.ts']],
    [
      'an add, a delete and a move',
      wrap('*** Add File: n.ts\n+x\n*** Delete File: old.ts\n*** Update File: a.ts\n*** Move to: b.ts\n@@ fn\n-x\n+y\n'),
      ['n.ts', 'old.ts', 'a.ts', 'b.ts'],
    ],
    ['attack: a header with leading spaces (Codex trims it)', wrap('   *** Update File: test/check.sh\n@@\n-exit 1\n+exit 0\n'), ['test/check.sh']],
    ['attack: a header with a tab and trailing spaces', wrap('\t*** Add File: .vouch/cards/c1/proof.sh  \n+exit 0\n'), ['.vouch/cards/c1/proof.sh']],
    ['attack: a header after an add hunk, indented', wrap('*** Add File: a.ts\n+x\n  *** Delete File: test/check.sh\n'), ['a.ts', 'test/check.sh']],
    ['attack: U+0085 before a header (white space to Rust, not to JavaScript)', wrap('\u0085*** Update File: test/check.sh\n@@\n-a\n+b\n'), ['test/check.sh']],
    ['attack: markers with spaces around them', '  *** Begin Patch  \n*** Add File: test/t.ts\n+x\n   *** End Patch   ', ['test/t.ts']],
    ['attack: CRLF line ends', '*** Begin Patch\r\n*** Update File: test/check.sh\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n', ['test/check.sh']],
    ['a here-document wrapper (lenient mode)', `<<'EOF'\n${wrap('*** Add File: test/t.ts\n+x\n')}EOF`, ['test/t.ts']],
    ['an update whose first chunk has no @@', wrap('*** Update File: a.ts\n import x\n+y\n'), ['a.ts']],
    ['an update with an end-of-file marker', wrap('*** Update File: a.ts\n@@\n-a\n+b\n*** End of File\n'), ['a.ts']],
    ['an absolute path', wrap('*** Delete File: /etc/x\n'), ['/etc/x']],
    ['no hunks', wrap(''), []],
  ])('%s', (_name, text, expected) => {
    expect(codexPatchPaths(text)).toEqual(expected);
  });

  it('an indented line inside an update hunk is context, not a header (Codex reads it so too)', () => {
    expect(codexPatchTouches(wrap('*** Update File: a.ts\n@@\n-a\n *** Delete File: test/check.sh\n'))).toEqual([{ path: 'a.ts', via: 'update' }]);
  });

  it('an indented Move to: is not a move (Codex looks for it at the start of the line)', () => {
    expect(codexPatchPaths(wrap('*** Update File: a.ts\n *** Move to: b.ts\n+x\n'))).toEqual(['a.ts']);
  });

  it.each([
    ['no begin marker', '*** Update File: a.ts\n@@\n-a\n+b\n*** End Patch\n'],
    ['no end marker', '*** Begin Patch\n*** Update File: a.ts\n@@\n-a\n+b\n'],
    ['a line that is no hunk header', wrap('*** Frobnicate File: a.ts\n')],
    ['an empty update', wrap('*** Update File: a.ts\n')],
    ['a header after an update, indented with a tab (Codex fails the whole patch)', wrap('*** Update File: a.ts\n@@\n-a\n\t*** Add File: b.ts\n+x\n')],
    ['a second chunk without @@', wrap('*** Update File: a.ts\n@@\n-a\n+b\nx\n')],
    ['empty text', ''],
  ])('what Codex would refuse is refused (null): %s', (_name, text) => {
    expect(codexPatchPaths(text)).toBeNull();
  });
});
