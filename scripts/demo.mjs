// `npm run demo`: vouch's main job, end to end, in a scratch copy of
// examples/quickstart: allow the spec, verify (PASS), edit a covered file
// (STALE), break it (FAIL). Nothing outside the scratch directory is touched:
// it has its own VOUCH_HOME.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = join(repo, 'dist', 'cli.js');
const scratch = mkdtempSync(join(tmpdir(), 'vouch-demo-'));
const workspace = join(scratch, 'quickstart');
cpSync(join(repo, 'examples', 'quickstart'), workspace, { recursive: true });
const env = { ...process.env, VOUCH_HOME: join(scratch, 'home'), NO_COLOR: '1' };

let failed = false;
function vouch(args, expectCode) {
  process.stdout.write(`\n$ vouch ${args.join(' ')}\n`);
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: workspace, env, encoding: 'utf8' });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  if (result.status !== expectCode) {
    process.stdout.write(`demo: expected exit ${expectCode}, got ${result.status}\n`);
    failed = true;
  }
}
function edit(note, change) {
  process.stdout.write(`\n# ${note}\n`);
  const path = join(workspace, 'src', 'slug.js');
  writeFileSync(path, change(readFileSync(path, 'utf8')));
}

try {
  process.stdout.write(`vouch demo in ${workspace}\n`);
  vouch(['allow'], 0);
  vouch(['verify'], 0);
  edit('an agent edits a covered file: the PASS no longer vouches for it', (text) => `${text}// edited\n`);
  vouch(['status'], 1);
  edit('and breaks it', (text) => text.replace("'-')", "'_')"));
  vouch(['verify'], 1);
  vouch(['log', '--limit', '4'], 0);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(failed ? '\ndemo: FAILED (see above)\n' : '\ndemo: done: PASS, then STALE after an edit, then FAIL\n');
process.exit(failed ? 1 : 0);
