import { describe, expect, it } from 'vitest';
import { shellWrites } from './writes.js';

const targets = (line: string, cwd = '/ws') => shellWrites(line, cwd, '/home/u').targets.map((t) => [t.path, t.via]);

describe('shellWrites: what a command line plainly writes', () => {
  it.each([
    ['a redirection', 'echo x > a.txt', [['/ws/a.txt', '> redirection']]],
    ['an append with an fd', 'cmd 2>> log/err.txt', [['/ws/log/err.txt', '>> redirection']]],
    [
      '&> and >|',
      'a &> one; b >| two',
      [
        ['/ws/one', '&> redirection'],
        ['/ws/two', '>| redirection'],
      ],
    ],
    [
      'quotes removed',
      `echo x > "my file" ; echo y > 'it''s'`,
      [
        ['/ws/my file', '> redirection'],
        ['/ws/its', '> redirection'],
      ],
    ],
    ['backslash escapes', 'echo x > a\\ b', [['/ws/a b', '> redirection']]],
    ['a home path', 'rm ~/notes', [['/home/u/notes', 'rm']]],
    [
      'rm with flags',
      'rm -rf -- build dist',
      [
        ['/ws/build', 'rm'],
        ['/ws/dist', 'rm'],
      ],
    ],
    ['cp: the destination only', 'cp -r src/a src/b out/', [['/ws/out', 'cp']]],
    ['cp -t', 'cp -t dest a b', [['/ws/dest', 'cp']]],
    [
      'mv: every operand',
      'mv a b',
      [
        ['/ws/a', 'mv'],
        ['/ws/b', 'mv'],
      ],
    ],
    ['tee', 'echo x | tee -a out.log', [['/ws/out.log', 'tee']]],
    ['sed -i skips the script', "sed -i.bak 's/a/b/' f.txt", [['/ws/f.txt', 'sed -i']]],
    ['sed -e keeps every operand', 'sed -i -e s/a/b/ f.txt', [['/ws/f.txt', 'sed -i']]],
    ['sed without -i writes nothing', "sed 's/a/b/' f.txt", []],
    ['perl -pi -e', "perl -pi -e 's/a/b/' f.txt", [['/ws/f.txt', 'perl -i']]],
    ['dd of=', 'dd if=/dev/zero of=disk.img bs=1', [['/ws/disk.img', 'dd of=']]],
    [
      'git checkout -- paths',
      'git checkout main -- a b',
      [
        ['/ws/a', 'git checkout'],
        ['/ws/b', 'git checkout'],
      ],
    ],
    ['git restore --source value is not a path', 'git restore --source HEAD~1 f', [['/ws/f', 'git restore']]],
    ['git -C dir: paths are read from there', 'git -C sub rm x', [['/ws/sub/x', 'git rm']]],
    ['git clean -fdx', 'git clean -fdx', [['/ws', 'git clean']]],
    ['git clean -fd: untracked files go too', 'git clean -fd', [['/ws', 'git clean']]],
    ['git clean -e PATTERN paths', 'git clean -f -e "*.log" -- src', [['/ws/src', 'git clean']]],
    ['git clean -n writes nothing', 'git clean -nd', []],
    ['{ ...; }', '{ rm a; }', [['/ws/a', 'rm']]],
    [
      'if / then / else / fi',
      'if true; then rm a; else rm b; fi',
      [
        ['/ws/a', 'rm'],
        ['/ws/b', 'rm'],
      ],
    ],
    ['! negation', '! rm a', [['/ws/a', 'rm']]],
    ['a function body', 'f() { rm a; }; f', [['/ws/a', 'rm']]],
    ['a `function` body', 'function f { rm a; }', [['/ws/a', 'rm']]],
    ['while / do / done', 'while true; do rm a; done', [['/ws/a', 'rm']]],
    ['until', 'until false; do touch a; done', [['/ws/a', 'touch']]],
    ['env -u NAME is not the command', 'env -u CLAUDECODE rm a', [['/ws/a', 'rm']]],
    ['sudo -u USER is not the command', 'sudo -u root rm a', [['/ws/a', 'rm']]],
    ['git status writes nothing', 'git status', []],
    ['wrappers and assignments', 'FOO=1 sudo -E nohup env A=b timeout 5 rm f', [['/ws/f', 'rm']]],
    [
      'cd changes the directory for what follows',
      'cd sub && touch f; cd /abs && rm g',
      [
        ['/ws/sub/f', 'touch'],
        ['/abs/g', 'rm'],
      ],
    ],
    ['sh -c', `bash -lc 'echo x > inner'`, [['/ws/inner', '> redirection']]],
    ['eval', 'eval "rm evaluated"', [['/ws/evaluated', 'rm']]],
    ['$(...) content', 'echo "$(rm sub1)"', [['/ws/sub1', 'rm']]],
    ['backquote content', 'echo `rm sub2`', [['/ws/sub2', 'rm']]],
    ['a comment hides nothing after a newline', '# rm a\nrm b', [['/ws/b', 'rm']]],
    [
      'a heredoc body is data',
      'cat > out <<EOF\nrm vouch.yaml\nEOF\nrm after',
      [
        ['/ws/out', '> redirection'],
        ['/ws/after', 'rm'],
      ],
    ],
    ['a quoted heredoc delimiter, tab-stripped', "cat <<-'END' > f\n\trm x\n\tEND\n", [['/ws/f', '> redirection']]],
    ['2>&1 is not a file', 'make 2>&1 | tail', []],
    ['reading is not writing', 'cat < vouch.yaml; wc -l vouch.yaml', []],
  ])('%s', (_name, line, expected) => {
    expect(targets(line)).toEqual(expected);
  });

  it.each([
    ['a variable in a redirection', 'echo x > $OUT'],
    ['a variable as an rm operand', 'rm "$F"'],
    ['a command substitution as a target', 'rm $(cat list)'],
  ])('does not guess a path it cannot read: %s (opaque)', (_name, line) => {
    const result = shellWrites(line, '/ws', '/home/u');
    expect(result.targets.filter((t) => t.path.includes('$'))).toEqual([]);
    expect(result.opaque).toBe(true);
  });

  it.each([
    ['a script', 'python3 gen.py', true],
    ['npm', 'npm test', true],
    ['only readers', 'ls -la && cat a | grep b | wc -l', false],
    ['git status and diff', 'git status && git diff', false],
  ])('says whether %s may write files it does not name', (_name, line, opaque) => {
    expect(shellWrites(line, '/ws', '/home/u').opaque).toBe(opaque);
  });

  it.each([
    ['vouch allow', 'vouch allow', ['vouch allow']],
    ['vouch -C dir allow', 'vouch -C sub allow --json', ['vouch allow']],
    ['vouch deny', 'vouch deny', ['vouch deny']],
    ['vouch init --write', 'vouch init --write', ['vouch init --write']],
    ['npx vouch allow', 'npx --yes vouch@latest allow', ['vouch allow']],
    ['npm exec -- vouch allow', 'npm exec -- vouch allow', ['vouch allow']],
    ['pnpm dlx vouch allow', 'pnpm dlx vouch allow', ['vouch allow']],
    ['bunx vouch deny', 'bunx vouch deny', ['vouch deny']],
    ['node .../cli.js allow', 'node --no-warnings /x/dist/cli.js allow', ['vouch allow']],
    ['a path to the binary', './node_modules/.bin/vouch allow', ['vouch allow']],
    ['with stripped markers', 'env -u CLAUDECODE vouch allow', ['vouch allow']],
    ['in sh -c', "sh -c 'vouch allow'", ['vouch allow']],
    ['in a function', 'f() { vouch allow; }; f', ['vouch allow']],
    ['vouch init proposes only', 'vouch init', []],
    ['vouch verify', 'vouch verify && vouch status', []],
    ['node running another script', 'node scripts/build.mjs allow', []],
    ['a word that mentions it', 'echo vouch allow', []],
  ])("sees the person's acts on trust: %s", (_name, line, acts) => {
    expect(shellWrites(line, '/ws', '/home/u').acts.map((act) => act.command)).toEqual(acts);
  });

  it('marks glob targets so the guard expands them', () => {
    expect(shellWrites('rm .vouch/*', '/ws', undefined).targets).toEqual([{ path: '/ws/.vouch/*', glob: true, tree: true, via: 'rm' }]);
  });
});

describe('shellWrites: the ways around a guard that reads commands', () => {
  it.each([
    ['cd -P: the option is not the directory', "cd -P test && printf 'exit 0' > check.sh", [['/ws/test/check.sh', '> redirection']]],
    ['cd -L -- DIR', 'cd -L -- test && touch f', [['/ws/test/f', 'touch']]],
    ['cd - goes back to the previous directory', 'cd test; cd /tmp; cd - && rm f', [['/ws/test/f', 'rm']]],
    ['popd returns to where pushd left', 'cd test; pushd /tmp; popd; echo x > check.sh', [['/ws/test/check.sh', '> redirection']]],
    [
      'a symlink made earlier in the line',
      'ln -s test tt && echo x > tt/f',
      [
        ['/ws/tt', 'ln'],
        ['/ws/test/f', '> redirection'],
      ],
    ],
    [
      'a symlink made with -sfn, then cd into it',
      'ln -sfn test tt; cd tt; rm check.sh',
      [
        ['/ws/tt', 'ln'],
        ['/ws/test/check.sh', 'rm'],
      ],
    ],
    [
      'a symlink whose target is read from its own directory',
      'ln -s ../test sub/tt && touch sub/tt/f',
      [
        ['/ws/sub/tt', 'ln'],
        ['/ws/test/f', 'touch'],
      ],
    ],
    [
      'a hard link made earlier in the line',
      'ln vouch.yaml h && echo x >> h',
      [
        ['/ws/h', 'ln'],
        ['/ws/vouch.yaml', '>> redirection'],
      ],
    ],
    [
      'a link made in sh -c, used after it',
      "sh -c 'ln -s test tt'; echo x > tt/f",
      [
        ['/ws/tt', 'ln'],
        ['/ws/test/f', '> redirection'],
      ],
    ],
    [
      'a chain of links',
      'ln -s test a; ln -s a b; echo x > b/f',
      [
        ['/ws/a', 'ln'],
        ['/ws/b', 'ln'],
        ['/ws/test/f', '> redirection'],
      ],
    ],
    [
      'ln into a directory with -t',
      'ln -s -t links /ws/test && rm links/test/f',
      [
        ['/ws/links', 'ln'],
        ['/ws/test/f', 'rm'],
      ],
    ],
    ['git -C reads paths from there', 'git -C test checkout -- check.sh', [['/ws/test/check.sh', 'git checkout']]],
  ])('%s', (_name, line, expected) => {
    expect(targets(line)).toEqual(expected);
  });

  it('a link that leads to itself does not loop', () => {
    expect(targets('ln -s a b; ln -s b a; echo x > a/f').length).toBe(3);
  });

  it.each([
    ['xargs feeds operands the line does not show', 'ls | xargs rm'],
    ['find may write (-delete)', 'find . -name "*.sh" -delete'],
    ['cd into a variable, then a relative write', 'cd "$D" && echo x > check.sh'],
  ])('is opaque: %s', (_name, line) => {
    expect(shellWrites(line, '/ws', '/home/u').opaque).toBe(true);
  });

  it.each([
    ['vouch install', 'vouch install claude-code', 'wiring', 'vouch install claude-code'],
    ['vouch uninstall with -C', 'vouch -C . uninstall codex --scope user', 'wiring', 'vouch uninstall codex'],
    ['npx vouch uninstall', 'npx vouch uninstall claude-code', 'wiring', 'vouch uninstall claude-code'],
    ['node .../cli.js install mcp', 'node /opt/vouch/dist/cli.js install mcp --client cursor --write', 'wiring', 'vouch install mcp'],
    ['vouch keys generate', 'vouch keys generate --name x', 'keys', 'vouch keys generate'],
    ['vouch keys with an unknown subcommand', 'vouch keys rotate', 'keys', 'vouch keys rotate'],
    ['vouch hook', `echo '{}' | vouch hook claude-code Stop`, 'hook', 'vouch hook claude-code'],
    ['vouch hook behind env -u and sh -c', `env -u CLAUDECODE sh -c 'vouch hook codex PreToolUse'`, 'hook', 'vouch hook codex'],
    ['vouch uninstall in eval', 'eval "vouch uninstall claude-code"', 'wiring', 'vouch uninstall claude-code'],
    ['vouch uninstall in $(...)', 'echo $(vouch uninstall git-hooks)', 'wiring', 'vouch uninstall git-hooks'],
    ['vouch uninstall through xargs', 'echo claude-code | xargs vouch uninstall', 'wiring', 'vouch uninstall'],
    ['vouch uninstall through find -exec', 'find . -maxdepth 0 -exec vouch uninstall claude-code \\;', 'wiring', 'vouch uninstall claude-code'],
    ['vouch serve allow', 'vouch serve --ledger postgres://x allow spec.yaml', 'trust', 'vouch serve allow'],
    ['vouch serve token add', 'vouch serve token add ci', 'trust', 'vouch serve token add'],
    ['git push --no-verify', 'git push --no-verify origin main', 'git_hooks', 'git push --no-verify'],
    ['git push --no-veri (an abbreviation git accepts)', 'git push --no-veri', 'git_hooks', 'git push --no-verify'],
    ['git commit --no-verify (the pre-commit gate)', 'git commit --no-verify -m x', 'git_hooks', 'git commit --no-verify'],
    ['git commit -an (-n in a cluster)', 'git commit -an -m x', 'git_hooks', 'git commit --no-verify'],
    ['git -c core.hooksPath=', 'git -c core.hooksPath=/dev/null push', 'git_hooks', 'git -c core.hooksPath=...'],
    ['git config core.hooksPath VALUE', 'git config core.hooksPath .nohooks', 'git_hooks', 'git config core.hooksPath'],
    ['git config --unset core.hookspath', 'git config --local --unset core.hookspath', 'git_hooks', 'git config core.hooksPath'],
    ['git config set (new syntax)', 'git config set core.hooksPath /tmp', 'git_hooks', 'git config core.hooksPath'],
    [
      'GIT_CONFIG_* in the environment',
      'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x git push',
      'git_hooks',
      'GIT_CONFIG_* core.hooksPath',
    ],
  ])("sees a person's act: %s", (_name, line, kind, command) => {
    expect(shellWrites(line, '/ws', '/home/u').acts[0]).toEqual({ kind, command });
  });

  it.each([
    ['vouch keys list', 'vouch keys list --json && vouch keys export-public default'],
    ['vouch install --help', 'vouch install --help'],
    ['vouch serve token list', 'vouch serve token list'],
    ['reading core.hooksPath', 'git config core.hooksPath; git config --get core.hooksPath'],
    ['git push', 'git push origin main'],
    ['a word that mentions vouch hook', 'echo vouch hook claude-code Stop'],
  ])('no act: %s', (_name, line) => {
    expect(shellWrites(line, '/ws', '/home/u').acts).toEqual([]);
  });

  it.each([
    ['git checkout BRANCH', 'git checkout main', [{ kind: 'diff', args: ['HEAD', 'main', '--'] }]],
    ['git checkout -f BRANCH: from the work tree', 'git checkout -f main', [{ kind: 'diff', args: ['main', '--'] }]],
    ['git checkout -', 'git checkout -', [{ kind: 'diff', args: ['HEAD', '@{-1}', '--'] }]],
    ['git checkout -b NEW START', 'git checkout -b x origin/y', [{ kind: 'diff', args: ['HEAD', 'origin/y', '--'] }]],
    ['git switch', 'git switch feature', [{ kind: 'diff', args: ['HEAD', 'feature', '--'] }]],
    ['git checkout -t REMOTE (-t takes no value)', 'git checkout -t origin/x', [{ kind: 'diff', args: ['HEAD', 'origin/x', '--'] }]],
    ['git switch -c NEW START', 'git switch -c x v1', [{ kind: 'diff', args: ['HEAD', 'v1', '--'] }]],
    ['git switch --orphan: every tracked file goes', 'git switch --orphan x', [{ kind: 'ls', args: [] }]],
    ['git reset --hard', 'git reset --hard HEAD~2', [{ kind: 'diff', args: ['HEAD~2', '--'] }]],
    ['git reset --hard alone', 'git reset --hard', [{ kind: 'diff', args: ['HEAD', '--'] }]],
    ['git stash', 'git stash', [{ kind: 'diff', args: ['HEAD', '--'] }]],
    [
      'git stash push -u -- PATH',
      'git stash push -u -- test',
      [
        { kind: 'diff', args: ['HEAD', '--', 'test'] },
        { kind: 'ls', args: ['--others', '--exclude-standard', '--', 'test'] },
      ],
    ],
    [
      'git stash pop',
      'git stash pop',
      [
        { kind: 'diff', args: ['stash@{0}^1', 'stash@{0}', '--'] },
        { kind: 'tree', rev: 'stash@{0}^3' },
      ],
    ],
    [
      'git stash apply 2',
      'git stash apply 2',
      [
        { kind: 'diff', args: ['stash@{2}^1', 'stash@{2}', '--'] },
        { kind: 'tree', rev: 'stash@{2}^3' },
      ],
    ],
    ['git merge', 'git merge --no-ff -m "msg" topic', [{ kind: 'diff', args: ['HEAD...topic', '--'] }]],
    ['git rebase', 'git rebase main', [{ kind: 'diff', args: ['main', 'HEAD', '--'] }]],
    ['git rebase --onto', 'git rebase --onto main old', [{ kind: 'diff', args: ['main', 'HEAD', '--'] }]],
    ['git pull: not known before it fetches', 'git pull --rebase', [{ kind: 'unknown' }]],
    ['git cherry-pick', 'git cherry-pick -x abc def', [{ kind: 'log', args: ['abc', 'def'] }]],
    ['git revert -m 1', 'git revert -m 1 M', [{ kind: 'log', args: ['M'] }]],
    [
      'git apply FILE',
      'git apply -p2 --directory=lib fix.patch',
      [{ kind: 'patch', source: { kind: 'file', path: '/ws/fix.patch' }, strip: 2, directory: 'lib' }],
    ],
    ['git apply < FILE', 'git apply < fix.patch', [{ kind: 'patch', source: { kind: 'file', path: '/ws/fix.patch' }, strip: 1, directory: null }]],
    ['cat FILE | git apply', 'cat /tmp/p.diff | git apply -', [{ kind: 'patch', source: { kind: 'file', path: '/tmp/p.diff' }, strip: 1, directory: null }]],
    [
      'git apply of a here-document',
      "git apply <<'EOF'\n--- a/x\n+++ b/x\nEOF\n",
      [{ kind: 'patch', source: { kind: 'text', text: '--- a/x\n+++ b/x\n' }, strip: 1, directory: null }],
    ],
    ['git apply from a pipe it cannot read', 'curl -s u | git apply', [{ kind: 'unknown' }]],
    ['git am', 'git am -3 series.mbox', [{ kind: 'patch', source: { kind: 'file', path: '/ws/series.mbox' }, strip: 1, directory: null }]],
  ])('sees a wholesale rewrite of the work tree: %s', (_name, line, queries) => {
    const result = shellWrites(line, '/ws', '/home/u');
    expect(result.gitOps.map((op) => op.queries)).toEqual([queries]);
    expect(result.opaque).toBe(true);
  });

  it.each([
    ['git apply --check', 'git apply --check fix.patch'],
    ['git apply --cached (the index only)', 'git apply --cached fix.patch'],
    ['git reset (mixed)', 'git reset HEAD~1'],
    ['git stash list', 'git stash list && git stash show -p'],
    ['git checkout -b NEW (stays where it is)', 'git checkout -b topic'],
    ['git checkout -- PATH (a path, read as such)', 'git checkout -- src/a.ts'],
  ])('no wholesale rewrite: %s', (_name, line) => {
    expect(shellWrites(line, '/ws', '/home/u').gitOps).toEqual([]);
  });

  it('git runs where -C puts it', () => {
    expect(shellWrites('cd sub && git -C ../other checkout main', '/ws', undefined).gitOps[0]).toMatchObject({
      dir: '/ws/other',
      command: 'git checkout main',
    });
  });
});

describe('shellWrites: a command is read-only only when every option it was given is known not to write or run a program', () => {
  const read = (line: string) => shellWrites(line, '/ws', '/home/u');

  it.each([
    ['grep -r x', 'grep -r x'],
    ['ls -la', 'ls -la'],
    ['ls with long options', 'ls --color=auto --group-directories-first -1 src'],
    ['cat -n', 'cat -n src/a.ts'],
    ['head -n 20', 'head -n 20 src/a.ts'],
    ['head -5 (a number as an option)', 'head -5 src/a.ts'],
    ['tail -n +5 -f', 'tail -n +5 -f log.txt'],
    ['wc -l', 'wc -l src/*.ts'],
    ['grep -rn --include=GLOB', 'grep -rn --include=*.ts -e "TODO" src'],
    ['grep -C 3 and a cluster', 'grep -inC3 foo src'],
    ['egrep', 'egrep -v "^#" conf'],
    ['rg with types and globs', 'rg -n --type ts -g "!dist" "export function" src'],
    ['rg --files', 'rg --files --hidden'],
    ['rg -e PATTERN', 'rg -e foo -e bar'],
    ['sort -u', 'sort -u names.txt'],
    ['sort -t: -k2,2n', 'sort -t: -k2,2n /etc/passwd'],
    ['uniq -c (input only)', 'sort f | uniq -c'],
    ['uniq IN - (output to stdout)', 'uniq in.txt -'],
    ['cut -d -f', 'cut -d, -f1,3 data.csv'],
    ['tr', "tr -d '\\r'"],
    ['diff -u', 'diff -u a.txt b.txt'],
    ['diff -ru with excludes', 'diff -ru --exclude=node_modules a b'],
    ['cmp -s', 'cmp -s a b'],
    ['comm -12', 'comm -12 a b'],
    ['stat -c', "stat -c '%s %n' src/a.ts"],
    ['file -b', 'file -b --mime-type src/a.ts'],
    ['du -sh', 'du -sh node_modules'],
    ['df -h', 'df -h .'],
    ['tree -L 2 -I', "tree -L 2 -I 'node_modules|dist'"],
    ['jq -r', "jq -r '.name' package.json"],
    ['jq --arg NAME VALUE', "jq --arg v 1 '.version = $v' package.json"],
    ['sha256sum', 'sha256sum dist/cli.js'],
    ['sha256sum -c', 'sha256sum -c SUMS'],
    ['md5sum', 'md5sum a'],
    ['basename -s', 'basename -s .ts src/a.ts'],
    ['realpath --relative-to', 'realpath --relative-to=. src/a.ts'],
    ['readlink -f', 'readlink -f node_modules/.bin/tsc'],
    ['which -a', 'which -a node'],
    ['date +FORMAT', "date -u '+%Y-%m-%d'"],
    ['pwd', 'pwd -P'],
    ['uname -a', 'uname -a'],
    ['id -u', 'id -u'],
    ['echo -n (any words)', 'echo -n hello'],
    ['printf', "printf '%s\\n' a b"],
    ['test and [', 'test -f a && [ -d src ]'],
    ['seq -w', 'seq -w 1 10'],
    ['od -An -tx1', 'od -An -tx1 a.bin'],
    ['xxd (input only)', 'xxd a.bin'],
    ['nl -ba', 'nl -ba src/a.ts'],
    ['paste -sd', 'paste -sd, list'],
    ['a --help', 'sort --help'],
    ['sed -n PRINT', "sed -n '10,20p' src/a.ts"],
    ['sed with a substitution to stdout', "sed -e 's/foo/bar/g' -e '/^#/d' src/a.ts"],
    ['sed with y and a brace group', "sed -n '/start/,/end/{s/x/y/;p}' f"],
    ['sed --sandbox (no w, no e)', "sed --sandbox 's/a/b/w out' f"],
    ['LC_ALL=C in front', 'LC_ALL=C sort f'],
    ['/usr/bin/sort', '/usr/bin/sort f'],
    ['a pipeline of readers', 'ls -la && cat a | grep -v b | sort | uniq -c | head -3'],
  ])('read-only: %s', (_name, line) => {
    const result = read(line);
    expect(result.targets).toEqual([]);
    expect(result.opaque).toBe(false);
  });

  it.each([
    ['uniq IN OUT writes OUT', 'uniq p.txt lib/u.js', [['/ws/lib/u.js', 'uniq']]],
    ['uniq -c IN OUT', 'uniq -c p.txt out.txt', [['/ws/out.txt', 'uniq']]],
    ['sort -o F', 'sort -o lib/u.js p.txt', [['/ws/lib/u.js', 'sort -o']]],
    ['sort -oF (attached)', 'sort -olib/u.js p.txt', [['/ws/lib/u.js', 'sort -o']]],
    ['sort -uo F (in a cluster)', 'sort -uo lib/u.js p.txt', [['/ws/lib/u.js', 'sort -o']]],
    ['sort --output=F', 'sort --output=lib/u.js p.txt', [['/ws/lib/u.js', 'sort --output']]],
    ['sort --output F', 'sort --output lib/u.js p.txt', [['/ws/lib/u.js', 'sort --output']]],
    ['tree -o F', 'tree -o lib/u.js', [['/ws/lib/u.js', 'tree -o']]],
    ['xxd -r IN OUT', 'xxd -r -p hex.txt lib/u.js', [['/ws/lib/u.js', 'xxd']]],
  ])('names what it writes: %s', (_name, line, expected) => {
    expect(targets(line)).toEqual(expected);
  });

  it.each([
    ['rg --pre CMD runs a program', 'rg --pre ./evil.sh x'],
    ['rg --pre=CMD', 'rg --pre=./evil.sh x'],
    ['rg -z runs decompressors from PATH', 'rg -z x'],
    ['sort --compress-program=CMD runs a program', 'sort --compress-program=./evil.sh big.txt'],
    ['sort -T DIR writes there', 'sort -T test big.txt'],
    ['tree -R writes 00Tree.html everywhere', 'tree -R -H .'],
    ['file -C writes a magic file', 'file -C -m mine'],
    ['date -s sets the clock', "date -s '2001-01-01'"],
    ['date MMDDhhmm sets the clock', 'date 01010000'],
    ['hostname NAME sets the host name', 'hostname evil'],
    ['an option vouch does not know', 'ls --frobnicate'],
    ['an abbreviation of a long option', 'sort --out=lib/u.js p.txt'],
    ['an option in a variable', 'sort $OPTS p.txt'],
    ['a quoted variable where an option could be', 'sort "$F" p.txt'],
    ['sed w FILE', "sed -n 'w lib/u.js' p.txt"],
    ['sed s///w FILE', "sed 's/a/b/w lib/u.js' p.txt"],
    ['sed e (runs the pattern space)', "sed 'e' cmds.txt"],
    ['sed s///e', "sed 's/.*/touch x/e' p.txt"],
    ['sed -f SCRIPT (not read)', 'sed -f script.sed p.txt'],
    ['sed with the script in a variable', 'sed "$S" p.txt'],
    ['perl without -i', `perl -e 'open(F, ">lib/u.js")'`],
    ['ruby without -i', `ruby -e 'File.write("lib/u.js", "")'`],
    ['awk (system(), print > file)', `awk '{ print > "lib/u.js" }' p.txt`],
    ['less (LESSOPEN, !cmd)', 'less README.md'],
    ['LD_PRELOAD in front of a reader', 'LD_PRELOAD=./evil.so cat a'],
    ['env LD_PRELOAD= in front of a reader', 'env LD_PRELOAD=./evil.so cat a'],
    ['RIPGREP_CONFIG_PATH (its file can hold --pre)', 'RIPGREP_CONFIG_PATH=./rc rg x'],
    ['a program of its own named like a reader', './cat a'],
    ['a program of its own named like a writer', 'tools/rm a'],
    ['rsync -e runs a program', 'rsync -e ./evil.sh a b'],
    ['install --strip-program', 'install -s --strip-program=./evil.sh a b'],
  ])('opaque: %s', (_name, line) => {
    expect(read(line).opaque).toBe(true);
  });
});

describe("shellWrites: Codex's own apply_patch command", () => {
  const PATCH = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Add File: test/t.ts\n+x\n*** End Patch\n';

  it.each([
    [
      'a here-document, as Codex intercepts it',
      `apply_patch <<'EOF'\n${PATCH}EOF\n`,
      [
        ['/ws/src/a.ts', 'apply_patch'],
        ['/ws/test/t.ts', 'apply_patch'],
      ],
    ],
    [
      'cd DIR && apply_patch',
      `cd sub && apply_patch <<'EOF'\n${PATCH}EOF\n`,
      [
        ['/ws/sub/src/a.ts', 'apply_patch'],
        ['/ws/sub/test/t.ts', 'apply_patch'],
      ],
    ],
    [
      'an argv ["apply_patch", PATCH] as the shell line reads it back',
      `apply_patch '${PATCH}'`,
      [
        ['/ws/src/a.ts', 'apply_patch'],
        ['/ws/test/t.ts', 'apply_patch'],
      ],
    ],
    [
      'applypatch',
      `applypatch <<EOF\n${PATCH}EOF\n`,
      [
        ['/ws/src/a.ts', 'apply_patch'],
        ['/ws/test/t.ts', 'apply_patch'],
      ],
    ],
    [
      'a header with a tab, as Codex reads it',
      `apply_patch <<'EOF'\n*** Begin Patch\n\t*** Add File: test/t.ts\n+x\n*** End Patch\nEOF\n`,
      [['/ws/test/t.ts', 'apply_patch']],
    ],
  ])('%s', (_name, line, expected) => {
    expect(targets(line)).toEqual(expected);
    expect(shellWrites(line, '/ws', '/home/u').opaque).toBe(false);
  });

  it.each([
    ['a patch on a pipe', `cat p | apply_patch`],
    ['a patch that does not parse', `apply_patch <<'EOF'\n*** Begin Patch\nnonsense\n*** End Patch\nEOF\n`],
    ['a patch in a variable', 'apply_patch "$P"'],
  ])('opaque: %s', (_name, line) => {
    expect(shellWrites(line, '/ws', '/home/u').opaque).toBe(true);
  });
});

describe("shellWrites: every person's act that changes what vouches (issue 23)", () => {
  it.each([
    ['vouch gc', 'vouch gc --keep-days 0', 'record', 'vouch gc'],
    ['vouch gc with the markers stripped', 'env -u CLAUDECODE -u AI_AGENT vouch gc --keep-per-check 1', 'record', 'vouch gc'],
    ['vouch card reprove', "env -u CLAUDECODE -u AI_AGENT vouch card reprove C --proof lint --why 'proof was flaky'", 'card', 'vouch card reprove'],
    ['vouch card decide', 'vouch card decide C abandon --why x', 'card', 'vouch card decide'],
    ['vouch card complete --force', 'VOUCH_ROLE=owner vouch card complete C --force --why done', 'card', 'vouch card complete --force'],
    ['npx vouch card complete --force', 'npx vouch card complete C --why x --force', 'card', 'vouch card complete --force'],
    ['vouch dispatch grade', 'node /opt/vouch/dist/cli.js dispatch grade d-1', 'grade', 'vouch dispatch grade'],
  ])("sees a person's act: %s", (_name, line, kind, command) => {
    expect(shellWrites(line, '/ws', '/home/u').acts[0]).toEqual({ kind, command });
  });

  it.each([
    ['vouch card complete (on a PASS)', 'vouch card complete C'],
    ['vouch card verify', 'vouch card verify C'],
    ['vouch dispatch close', 'vouch dispatch close d-1 --reason done'],
    ['vouch dispatch report', 'vouch dispatch report d-1 --report claim.json'],
    ['vouch card reprove --help', 'vouch card reprove --help'],
  ])('no act: %s', (_name, line) => {
    expect(shellWrites(line, '/ws', '/home/u').acts).toEqual([]);
  });
});
