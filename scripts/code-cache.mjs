// Writes dist/hot.js.cache: V8's code cache for the hot bundle, which the
// launcher (src/entry/launch.ts) hands to V8 so that `hook`, `status` and
// `verify` start without parsing or compiling it. Made by the Node that will
// run it: by scripts/build.mjs, and again at install (package.json's install
// script). The file starts with the bundle's build id
// (src/entry/code-cache.ts). A cache from another Node or another build is
// not used and the source is compiled as usual, so a missing or stale cache
// costs time, never correctness. Never fails the install.
//
// A cache taken right after compiling holds only the code V8 compiles
// eagerly; every function a command calls would still be compiled on its
// first call, in every process. So the cache is taken after a warm-up: a
// child process compiles the bundle, runs verify, status and the Claude Code
// hooks on a throwaway workspace (its own VOUCH_HOME, a `true` check), and
// then takes the cache, which then holds the bytecode of what those commands
// ran. The cache holds code only, no state of the warm-up's run (V8 keeps
// none in it). When the warm-up cannot run (no git, a command that does not
// answer as expected), the compile-only cache stays and a line says why.
//
//   node scripts/code-cache.mjs             the cache for dist/hot.js
//   node scripts/code-cache.mjs --warm DIR  (the warm-up child; DIR is its workspace)
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const file = fileURLToPath(new URL('../dist/hot.js', import.meta.url));
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const launcher = () => createRequire(import.meta.url)('../dist/cli.js');

/** Writes the cache file for `script` (compiled by the launcher's compileHot), through a temporary file. */
function writeCache(script, build) {
  const temporary = `${file}.cache.${process.pid}`;
  writeFileSync(temporary, launcher().encodeCodeCache(build, script.createCachedData()));
  renameSync(temporary, `${file}.cache`);
}

/** The cache of the bundle as compiled, nothing run: what stays when the warm-up cannot run. */
function compileOnlyCache() {
  // Compiled by the launcher's own function: same wrapper, same file name; the file names the bundle's build.
  const { script, build } = launcher().compileHot(file);
  if (build === undefined) throw new Error('dist/hot.js does not name its build on its first line');
  writeCache(script, build);
}

/** What the warm-up runs, in order, and the exit code each must answer with; a hook reads its payload on stdin. */
function warmUpCommands(root) {
  const payload = (fields) => JSON.stringify({ session_id: 'warm-up', cwd: root, ...fields });
  const edit = { tool_name: 'Edit', tool_input: { file_path: join(root, 'a.txt'), old_string: 'a', new_string: 'b' } };
  return [
    { args: ['verify'] },
    { args: ['status'] },
    { args: ['hook', 'claude-code', 'PreToolUse'], stdin: payload({ hook_event_name: 'PreToolUse', ...edit }) },
    { args: ['hook', 'claude-code', 'PostToolUse'], stdin: payload({ hook_event_name: 'PostToolUse', ...edit, tool_response: { success: true } }) },
    { args: ['hook', 'claude-code', 'Stop'], stdin: payload({ hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done' }) },
    { args: ['status'] },
  ];
}

/**
 * The warm-up child: compiles the bundle from its source, runs each
 * command as the launcher would (its argv, the git status the launcher
 * starts for a verify, the payload on fd 0), then writes the cache. What
 * each command answered goes to DIR/answers.json for the parent.
 */
async function warm(root) {
  const { compileHot, startEarlyStatus } = launcher();
  const { script, build } = compileHot(file, readFileSync(`${file}.cache`));
  if (build === undefined) throw new Error('dist/hot.js does not name its build on its first line');
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, join(file, '..'));
  const answers = [];
  for (const [index, command] of warmUpCommands(root).entries()) {
    if (command.stdin !== undefined) {
      const input = join(root, '..', `stdin-${index}`);
      writeFileSync(input, command.stdin);
      // The lowest free descriptor: the payload becomes fd 0, where a hook reads it.
      closeSync(0);
      if (openSync(input, 'r') !== 0) throw new Error('the payload could not be put on fd 0');
    }
    process.argv = [process.execPath, cli, ...command.args];
    process.exitCode = undefined;
    await module.exports.run('absent', command.args[0] === 'verify' ? startEarlyStatus(root, process.env) : null);
    answers.push({ args: command.args, code: process.exitCode ?? 0 });
  }
  writeFileSync(join(root, '..', 'answers.json'), JSON.stringify(answers));
  if (answers.every((answer) => answer.code === 0)) writeCache(script, build);
  process.exitCode = 0;
}

/** The throwaway workspace: a git repository with one file and a `true` check over it, allowed in its own VOUCH_HOME. */
function warmUpWorkspace(base, env) {
  const root = join(base, 'workspace');
  mkdirSync(root);
  const git = (...args) => spawnSync('git', args, { cwd: root, env, stdio: 'ignore' }).status === 0;
  writeFileSync(join(root, 'a.txt'), 'a\n');
  writeFileSync(join(root, 'vouch.yaml'), 'version: 1\nchecks:\n  - id: warm-up\n    run: ["true"]\n    sources: ["a.txt"]\n');
  if (!git('init', '-q') || !git('add', '-A') || !git('-c', 'user.name=vouch', '-c', 'user.email=vouch@example.invalid', 'commit', '-q', '-m', 'warm-up'))
    return { why: 'git could not make its repository (is git installed?)' };
  const allowed = spawnSync(process.execPath, [cli, 'allow'], { cwd: root, env, encoding: 'utf8' });
  if (allowed.status !== 0) return { why: `vouch allow answered ${allowed.status}: ${allowed.stderr.trim().split('\n')[0]}` };
  // The first verify makes the ledger and the state folders: code every later run skips, kept out of the cache.
  const first = spawnSync(process.execPath, [cli, 'verify'], { cwd: root, env, encoding: 'utf8' });
  if (first.status !== 0) return { why: `the first \`vouch verify\` answered ${first.status}: ${first.stderr.trim().split('\n')[0]}` };
  return { root };
}

/** Runs the warm-up child; undefined when it wrote the warm cache, else why not. */
function warmUp() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-code-cache-')));
  try {
    // Nothing of the caller's environment: the warm-up is the same wherever it runs, and no agent's markers reach it.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, VOUCH_HOME: join(base, 'vouch-home'), NO_COLOR: '1', LANG: 'C' };
    const workspace = warmUpWorkspace(base, env);
    if (workspace.why) return workspace.why;
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--warm', workspace.root], {
      cwd: workspace.root,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 60_000,
    });
    const answers = existsSync(join(base, 'answers.json')) ? JSON.parse(readFileSync(join(base, 'answers.json'), 'utf8')) : undefined;
    if (answers === undefined) return `its run ended with ${child.status ?? child.signal}: ${(child.stderr ?? '').trim().split('\n').slice(-1)[0]}`;
    const wrong = answers.find((answer) => answer.code !== 0);
    return wrong && `\`vouch ${wrong.args.join(' ')}\` answered ${wrong.code}`;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--warm') {
  await warm(process.argv[3]);
} else if (existsSync(file)) {
  // In a fresh clone `npm ci` runs this before `prepare` has built dist/: nothing to cache yet.
  try {
    compileOnlyCache();
    const why = warmUp();
    if (why) process.stderr.write(`vouch: the hot bundle's code cache was made without its warm-up (${why}); vouch only starts slower\n`);
  } catch (error) {
    process.stderr.write(`vouch: no code cache for the hot bundle (${error.message}); vouch works without it, only starts slower\n`);
  }
  process.exitCode = 0;
}
