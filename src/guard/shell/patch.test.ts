import { describe, expect, it } from 'vitest';
import { patchFilePaths } from './patch.js';

describe('patchFilePaths: the files a patch touches', () => {
  it.each([
    [
      'a git diff',
      'diff --git a/test/check.sh b/test/check.sh\nindex 1..2 100755\n--- a/test/check.sh\n+++ b/test/check.sh\n@@ -1 +1 @@\n-exit 1\n+exit 0\n',
      1,
      null,
      ['test/check.sh'],
    ],
    ['a new file', 'diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n', 1, null, ['n.txt']],
    ['a deletion', 'diff --git a/vouch.yaml b/vouch.yaml\ndeleted file mode 100644\n--- a/vouch.yaml\n+++ /dev/null\n', 1, null, ['vouch.yaml']],
    [
      'a rename without content',
      'diff --git a/test/t.sh b/src/t.sh\nsimilarity index 100%\nrename from test/t.sh\nrename to src/t.sh\n',
      1,
      null,
      ['test/t.sh', 'src/t.sh'],
    ],
    ['a mode change only (header alone)', 'diff --git a/test/check.sh b/test/check.sh\nold mode 100755\nnew mode 100644\n', 1, null, ['test/check.sh']],
    ['a name with a space', 'diff --git a/my dir/f b/my dir/f\n--- a/my dir/f\n+++ b/my dir/f\n', 1, null, ['my dir/f']],
    ['a quoted name', 'diff --git "a/t\\303\\244.sh" "b/t\\303\\244.sh"\n', 1, null, ['tä.sh']],
    ['GNU diff with timestamps, -p0', '--- test/check.sh\t2024-01-01 00:00:00\n+++ test/check.sh\t2024-01-02 00:00:00\n', 0, null, ['test/check.sh']],
    ['-p2 and --directory', '--- x/y/f.sh\n+++ x/y/f.sh\n', 2, 'test', ['test/f.sh']],
  ])('%s', (_name, text, strip, directory, expected) => {
    expect(patchFilePaths(text, strip, directory).sort()).toEqual([...expected].sort());
  });
});
