import { fail } from '../../core/problem.js';
import { traceCheck, type Trace } from '../../engine/trace.js';
import { paint, type Paint } from '../../render/color.js';
import { visible } from '../../render/visible.js';
import { selectChecks } from '../../spec/select.js';
import type { TracedFile } from '../../trace/classify.js';
import { notAllowedWords } from '../../trust/trust.js';
import { EXIT } from '../exit.js';
import { err, json, out, type Cli } from '../io.js';
import { enterWorkspace } from '../workspace-dir.js';

/** How many system files the text lists by folder before "and N more" (--json lists every one). */
const SYSTEM_FOLDERS = 12;

/** `vouch checks --trace ID`: runs the check once under strace and says what it used outside its proof. */
export async function runTrace(cli: Cli, id: string, asJson: boolean): Promise<number> {
  const session = cli.session;
  const workspace = session.workspace();
  const spec = await session.spec(workspace);
  const [check] = selectChecks(spec, [id]);
  const ctx = session.engine(workspace, spec, 'cli', { cwdIsRoot: enterWorkspace(workspace) });
  const errPaint = paint(cli.color && cli.io.stderrIsTTY);
  if (!asJson) err(cli, errPaint.dim(`tracing ${check!.id}: running it once under strace, in the workspace (not hermetic); no receipt is recorded`));
  const result = await traceCheck(ctx, check!, { ...(cli.io.signal && { signal: cli.io.signal }) });
  switch (result.kind) {
    case 'trust_error':
      return fail(result.problem);
    case 'not_allowed':
      return fail({
        code: 'spec_not_allowed',
        message: `nothing was traced: ${notAllowedWords(result.trust).replace(/^vouch\.yaml/, workspace.specPath)}`,
        hint: 'a trace runs the check: read vouch.yaml (it decides what runs), then `vouch allow`',
      });
    case 'no_tracer':
      return fail({
        code: 'tracer_unavailable',
        message: `no tracer: ${result.why}`,
        where: 'vouch checks --trace',
        hint: 'install strace (Debian, Ubuntu: apt-get install strace) where processes may be traced, then trace again',
      });
    case 'cannot_run':
      return fail({ code: 'usage', message: `check "${check!.id}" cannot run: ${result.why}`, where: 'vouch checks --trace' });
    case 'traced':
      break;
  }
  const trace = result.trace;
  if (asJson) {
    json(cli, {
      check: trace.check.id,
      receipt: null,
      run: { argv: trace.check.run, tracer: trace.tracer, exit_code: trace.exitCode, timed_out: trace.timedOut, duration_ms: trace.durationMs },
      files: trace.files,
      inputs: trace.inputs,
    });
    return EXIT.ok;
  }
  out(cli, renderTrace(trace, paint(cli.color)));
  return EXIT.ok;
}

function renderTrace(trace: Trace, p: Paint): string {
  const { files, check } = trace;
  const ran = trace.timedOut ? 'timed out' : `exited ${String(trace.exitCode)}`;
  const lines = [
    `${p.bold(check.id)}: ${check.shell ? `sh -c ${JSON.stringify(check.run[0])}` : check.run.join(' ')} ${ran} under ${trace.tracer} (${(trace.durationMs / 1000).toFixed(1)} s). Files it used outside its proof:`,
  ];
  lines.push(...group('workspace', files.workspace, p), ...group('home', files.home, p), ...systemGroup(files.system, p));
  const added = trace.inputs.filter((glob) => !check.inputs.includes(glob));
  if (added.length === 0) {
    lines.push(
      '',
      files.workspace.length === 0
        ? 'Nothing of the workspace outside its proof.'
        : 'The workspace files it used are written by the run itself or lie under .git: none to add as inputs.',
    );
  } else {
    lines.push(
      '',
      `To put the workspace files in its proof, give check ${check.id} in vouch.yaml:`,
      `    inputs: [${trace.inputs.map((glob) => JSON.stringify(glob)).join(', ')}]`,
      p.dim('  then `vouch allow` (inputs are fingerprinted and pinned; a hermetic check sees only its proof).'),
    );
  }
  if (files.home.length > 0)
    lines.push(p.dim('Files under HOME are in no proof: a hermetic check (hermetic: true) runs with an empty HOME, where a tool finds none of them.'));
  if (files.system.length > 0)
    lines.push(p.dim('System files (the interpreter, its libraries, /etc) are not pinned: see docs/security.md, "What hermetic mode does not cover".'));
  return lines.join('\n');
}

function group(name: string, list: readonly TracedFile[], p: Paint): string[] {
  if (list.length === 0) return [`  ${name}: none`];
  return [
    `  ${name} (${list.length})`,
    ...list.map((file) => `    ${how(file, p)} ${visible(file.path)}${file.written ? p.dim(' (the run wrote it too)') : ''}`),
  ];
}

/** System files by folder (their first four components): hundreds of libraries read as one line each would bury the rest. */
function systemGroup(list: readonly TracedFile[], p: Paint): string[] {
  if (list.length === 0) return ['  system: none'];
  const folders = new Map<string, number>();
  for (const file of list) {
    const folder = file.path.split('/').slice(0, 5).join('/');
    const key = folder === file.path ? file.path.slice(0, file.path.lastIndexOf('/')) || '/' : folder;
    folders.set(key, (folders.get(key) ?? 0) + 1);
  }
  const execs = list.filter((file) => file.how === 'exec').map((file) => file.path);
  const shown = [...folders].sort((a, b) => b[1] - a[1]).slice(0, SYSTEM_FOLDERS);
  return [
    `  system (${list.length}${execs.length > 0 ? `; ran ${execs.map(visible).join(', ')}` : ''})`,
    ...shown.map(([folder, n]) => `    ${String(n).padStart(4)} under ${visible(folder)}`),
    ...(folders.size > SYSTEM_FOLDERS ? [p.dim(`    and ${folders.size - SYSTEM_FOLDERS} more folders (--json lists every file)`)] : []),
  ];
}

function how(file: TracedFile, p: Paint): string {
  switch (file.how) {
    case 'exec':
      return p.yellow('ran ');
    case 'read':
      return 'read';
    case 'look':
      return p.dim('saw ');
  }
}
