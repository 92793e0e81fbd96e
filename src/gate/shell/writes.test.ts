import { describe, expect, it } from 'vitest';
import { shellWrites } from './writes.js';

const targets = (line: string, cwd = '/ws') => shellWrites(line, cwd, '/home/u').targets.map((t) => [t.path, t.via]);

describe('shellWrites: what a command line plainly writes', () => {
  it.each([
    ['a redirection', 'echo x > a.txt', [['/ws/a.txt', '> redirection']]],
    ['an append with an fd', 'cmd 2>> log/err.txt', [['/ws/log/err.txt', '>> redirection']]],
    ['&> and >|', 'a &> one; b >| two', [['/ws/one', '&> redirection'], ['/ws/two', '>| redirection']]],
    ['quotes removed', `echo x > "my file" ; echo y > 'it''s'`, [['/ws/my file', '> redirection'], ['/ws/its', '> redirection']]],
    ['backslash escapes', 'echo x > a\\ b', [['/ws/a b', '> redirection']]],
    ['a home path', 'rm ~/notes', [['/home/u/notes', 'rm']]],
    ['rm with flags', 'rm -rf -- build dist', [['/ws/build', 'rm'], ['/ws/dist', 'rm']]],
    ['cp: the destination only', 'cp -r src/a src/b out/', [['/ws/out', 'cp']]],
    ['cp -t', 'cp -t dest a b', [['/ws/dest', 'cp']]],
    ['mv: every operand', 'mv a b', [['/ws/a', 'mv'], ['/ws/b', 'mv']]],
    ['tee', 'echo x | tee -a out.log', [['/ws/out.log', 'tee']]],
    ['sed -i skips the script', "sed -i.bak 's/a/b/' f.txt", [['/ws/f.txt', 'sed -i']]],
    ['sed -e keeps every operand', 'sed -i -e s/a/b/ f.txt', [['/ws/f.txt', 'sed -i']]],
    ['sed without -i writes nothing', "sed 's/a/b/' f.txt", []],
    ['perl -pi -e', "perl -pi -e 's/a/b/' f.txt", [['/ws/f.txt', 'perl -i']]],
    ['dd of=', 'dd if=/dev/zero of=disk.img bs=1', [['/ws/disk.img', 'dd of=']]],
    ['git checkout -- paths', 'git checkout main -- a b', [['/ws/a', 'git checkout'], ['/ws/b', 'git checkout']]],
    ['git restore --source value is not a path', 'git restore --source HEAD~1 f', [['/ws/f', 'git restore']]],
    ['git -C dir', 'git -C sub rm x', [['/ws/x', 'git rm']]],
    ['git clean -fdx', 'git clean -fdx', [['/ws', 'git clean']]],
    ['git clean -fd: untracked files go too', 'git clean -fd', [['/ws', 'git clean']]],
    ['git clean -e PATTERN paths', 'git clean -f -e "*.log" -- src', [['/ws/src', 'git clean']]],
    ['git clean -n writes nothing', 'git clean -nd', []],
    ['{ ...; }', '{ rm a; }', [['/ws/a', 'rm']]],
    ['if / then / else / fi', 'if true; then rm a; else rm b; fi', [['/ws/a', 'rm'], ['/ws/b', 'rm']]],
    ['! negation', '! rm a', [['/ws/a', 'rm']]],
    ['a function body', 'f() { rm a; }; f', [['/ws/a', 'rm']]],
    ['a `function` body', 'function f { rm a; }', [['/ws/a', 'rm']]],
    ['while / do / done', 'while true; do rm a; done', [['/ws/a', 'rm']]],
    ['until', 'until false; do touch a; done', [['/ws/a', 'touch']]],
    ['env -u NAME is not the command', 'env -u CLAUDECODE rm a', [['/ws/a', 'rm']]],
    ['sudo -u USER is not the command', 'sudo -u root rm a', [['/ws/a', 'rm']]],
    ['git status writes nothing', 'git status', []],
    ['wrappers and assignments', 'FOO=1 sudo -E nohup env A=b timeout 5 rm f', [['/ws/f', 'rm']]],
    ['cd changes the directory for what follows', 'cd sub && touch f; cd /abs && rm g', [['/ws/sub/f', 'touch'], ['/abs/g', 'rm']]],
    ['sh -c', `bash -lc 'echo x > inner'`, [['/ws/inner', '> redirection']]],
    ['eval', 'eval "rm evaluated"', [['/ws/evaluated', 'rm']]],
    ['$(...) content', 'echo "$(rm sub1)"', [['/ws/sub1', 'rm']]],
    ['backquote content', 'echo `rm sub2`', [['/ws/sub2', 'rm']]],
    ['a comment hides nothing after a newline', '# rm a\nrm b', [['/ws/b', 'rm']]],
    ['a heredoc body is data', 'cat > out <<EOF\nrm vouch.yaml\nEOF\nrm after', [['/ws/out', '> redirection'], ['/ws/after', 'rm']]],
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
    expect(shellWrites(line, '/ws', '/home/u').trustActs).toEqual(acts);
  });

  it('marks glob targets so the guard expands them', () => {
    expect(shellWrites('rm .vouch/*', '/ws', undefined).targets).toEqual([{ path: '/ws/.vouch/*', glob: true, tree: true, via: 'rm' }]);
  });
});
