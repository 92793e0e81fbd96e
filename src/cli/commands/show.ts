import { fail, type Problem } from '../../core/problem.js';
import { shortId } from '../../core/ids.js';
import { unreachable } from '../../core/unreachable.js';
import type { Ledger } from '../../ledger/ledger.js';
import { readLog, type LogMissing } from '../../logs/store.js';
import type { SandboxRecord, StoredReceipt } from '../../receipt/receipt.js';
import type { WritablePlace } from '../../receipt/sandbox-record.js';
import { paint, type Paint } from '../../render/color.js';
import { statusWord } from '../../render/status.js';
import { duration } from '../../render/time.js';
import { oneLine } from '../../render/visible.js';
import type { Manifest } from '../../scope/manifest.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, json, out, type Cli } from '../io.js';

export const help = `usage: vouch show [RECEIPT | CHECK] [--files] [--log] [--json]

One receipt in full: what ran, where, for how long, its exit code, the
hashes and redacted excerpts of its output, the files it covered, the
verdict and why.

Which receipt: with no argument, the latest one recorded; a CHECK id, that
check's latest; otherwise RECEIPT: a full id, its short form (the last 8
characters, as \`vouch verify\` and \`vouch log\` show it), or any unique
leading or trailing part of 6+ characters. A check id wins over a receipt id
part that happens to spell the same; vouch then says so on stderr (give the
full receipt id for the receipt). A part that matches several receipts
lists them.

  --files  list every file of the manifest (path, sha256, size, group)
  --log    print the run's whole stored output instead: stdout, then stderr,
           redacted as the excerpts are (not interleaved: the two streams are
           kept apart). Exact bytes when stdout is not a terminal. A stream
           past 16 MiB keeps its first and last 8 MiB and says how many bytes
           were dropped. A receipt without a stored log (recorded before vouch
           kept logs, a check that never started, a receipt copied from a
           verifier service) exits 6 with the reason, never with empty output.
  --json   {"seq", "hash", "intact", "signature", "receipt": {...}, "manifest": {"files", "refused"}}
           (signature: the stored record {"alg", "keyid", "sig"} as JSON text, or null;
           \`vouch status\` and \`vouch audit\` check it; receipt.log: {"sha256", "bytes"}
           of the stored log, when there is one; receipt.duplicate_of and receipt.dedupe_count
           on a rerun inside dedupe_window_seconds that found what the run before it found)`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('show', args, { json: { type: 'boolean' }, files: { type: 'boolean' }, log: { type: 'boolean' } });
  const [id, ...extra] = positionals;
  if (extra.length > 0) {
    return fail({
      code: 'usage',
      message: 'expected at most one receipt or check id',
      found: extra.join(' '),
      where: 'vouch show',
      hint: '`vouch log` lists receipt ids',
    });
  }
  if (values.log && (values.json || values.files)) {
    return fail({
      code: 'usage',
      message: `--log prints the stored output only; it does not combine with --${values.json ? 'json' : 'files'}`,
      where: 'vouch show',
    });
  }
  const workspace = cli.session.workspace();
  const ledger = await cli.session.read(workspace);
  if (!ledger)
    return fail({
      code: 'receipt_not_found',
      message: `${id === undefined ? 'no receipt' : `no receipt "${id}"`}: nothing has been recorded in this workspace yet`,
      hint: 'run `vouch verify`',
    });
  const receipt = await chooseReceipt(cli, ledger, id);
  if (values.log) return printLog(cli, workspace.stateDir, receipt);
  const manifest = receipt.intact ? await ledger.getManifest(receipt.body.manifest_digest) : undefined;
  if (values.json) {
    json(cli, {
      seq: receipt.seq,
      hash: receipt.hash,
      intact: receipt.intact,
      signature: receipt.signature,
      receipt: receipt.body,
      manifest: manifest ?? null,
    });
  } else {
    out(cli, renderReceipt(receipt, manifest, values.files === true, paint(cli.color)));
  }
  return EXIT.ok;
}

/**
 * The receipt an argument names. A check id is read first: `vouch show
 * tests` means the tests' latest, even if some receipt id happens to end
 * in "tests"-shaped base32. That overlap is said, not silently resolved.
 */
async function chooseReceipt(cli: Cli, ledger: Ledger, id: string | undefined): Promise<StoredReceipt> {
  if (id === undefined) {
    const [latest] = await ledger.listReceipts({ limit: 1 });
    return latest ?? fail({ code: 'receipt_not_found', message: 'no receipt: nothing has been recorded in this workspace yet', hint: 'run `vouch verify`' });
  }
  const ofCheck = (await ledger.latestReceipts([id])).get(id);
  if (ofCheck) {
    const also = id.length >= 6 ? await ledger.findReceipt(id) : ({ kind: 'none' } as const);
    if (also.kind !== 'none') {
      const ids = also.kind === 'found' ? [also.receipt.body.id] : also.ids;
      err(
        cli,
        `vouch: "${id}" is a check id and also matches receipt ${ids.join(', ')}; showing the check's latest receipt (give a full receipt id for the other)`,
      );
    }
    return ofCheck;
  }
  if (id.length < 6) {
    return fail({
      code: 'usage',
      message: `"${id}" is not a check with receipts, and a receipt id part needs at least 6 characters`,
      found: id,
      where: 'vouch show',
      hint: '`vouch log` lists receipt ids',
    });
  }
  const found = await ledger.findReceipt(id);
  if (found.kind === 'none')
    return fail({
      code: 'receipt_not_found',
      message: `no receipt "${id}" in this ledger, and no check of that id has one`,
      hint: '`vouch log` lists receipt ids',
    });
  if (found.kind === 'ambiguous') {
    return fail({
      code: 'receipt_ambiguous',
      message: `"${id}" matches several receipts: ${found.ids.map((full) => `${full} (${shortId(full)})`).join(', ')}`,
      hint: 'give the full id, or more characters of it',
    });
  }
  return found.receipt;
}

/** Where the run was confined and what it could see: a hermetic run's sandbox, or the verifier's. */
function sandboxLine(sandbox: SandboxRecord | undefined, p: Paint): string[] {
  if (!sandbox) return [];
  if (sandbox.kind === 'none') return [`${p.bold('sandbox')}   ${p.yellow('none')}: ${oneLine(sandbox.why)}`];
  const view = sandbox.view;
  const shown = view
    ? `only ${view.files} declared files (${Math.ceil(view.bytes / 1024)} KiB), empty HOME${view.writable.length > 0 ? `, writable ${view.writable.map((dir) => (dir === '' ? '.' : dir)).join(' ')}` : ''}`
    : writableText(sandbox.writable);
  return [`${p.bold('sandbox')}   bubblewrap · ${oneLine(shown)} · network ${sandbox.network ? 'on' : 'off'}`];
}

/** Where a sandboxed check could write, as a line: the older receipts' one word, or each place with its bound. */
function writableText(writable: 'job directory' | 'artifact folders' | readonly WritablePlace[]): string {
  if (typeof writable === 'string') return `the ${writable}`;
  const places = writable.map((w) => `${w.place} (${w.kind}${w.bytes === null ? '' : ` ≤ ${Math.ceil(w.bytes / (1024 * 1024))} MiB`})`);
  return `writable ${places.join(', ')}`;
}

/** The stored log, exact: through the terminal boundary only when a person reads it there. */
function printLog(cli: Cli, stateDir: string, receipt: StoredReceipt): number {
  const b = receipt.body;
  const read = readLog(stateDir, receipt.intact ? b.log : undefined);
  if (!read.ok) return fail(logMissing(receipt, read.missing));
  const bytes = Buffer.concat([read.log.stdout, read.log.stderr]);
  if (cli.io.stdoutIsTTY) cli.io.stdout.write(bytes.toString('utf8'));
  else cli.data.write(bytes);
  return EXIT.ok;
}

function logMissing(receipt: StoredReceipt, missing: LogMissing): Problem {
  const b = receipt.body;
  const name = `receipt ${b.id} (${oneLine(b.check_id)})`;
  const excerpts = `\`vouch show ${shortId(b.id)}\` still shows the redacted excerpts; \`vouch verify ${oneLine(b.check_id)}\` makes a new run with its log`;
  switch (missing.reason) {
    case 'not_recorded': {
      const why = !receipt.intact
        ? 'its stored bytes no longer match its hash'
        : !b.ran
          ? 'the check never started, so there was no output'
          : b.remote
            ? 'it was copied from a verifier service, whose log stays there'
            : 'it was recorded before vouch kept whole logs, or under a vouch.yaml that keeps none (retention.logs: false or excerpt_bytes: 0)';
      return { code: 'log_not_found', message: `${name} has no stored log: ${why}`, hint: excerpts };
    }
    case 'absent':
      return {
        code: 'log_not_found',
        message: `the log of ${name} is no longer stored: ${missing.path} is gone (gc removes logs with their receipts, and older than retention.log_days)`,
        hint: excerpts,
      };
    case 'damaged':
      return { code: 'log_not_found', message: `the log of ${name} is damaged: ${missing.path} does not hash to the digest the receipt names`, hint: excerpts };
    default:
      return unreachable(missing);
  }
}

function signatureKeyid(stored: string): string {
  try {
    const keyid = (JSON.parse(stored) as { keyid?: unknown }).keyid;
    return typeof keyid === 'string' ? keyid.slice(0, 16) : '(unreadable)';
  } catch {
    return '(unreadable)';
  }
}

function renderReceipt(receipt: StoredReceipt, manifest: Manifest | undefined, files: boolean, p: Paint): string {
  const b = receipt.body;
  if (!receipt.intact) {
    return `${p.red('receipt')} ${b.id} (seq ${receipt.seq}) ${p.red('is damaged: its stored bytes no longer match its hash')}`;
  }
  const command = b.shell ? `sh -c ${JSON.stringify(b.argv[0])}` : b.argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
  const lines = [
    `${p.bold('receipt')}   ${b.id}  ${p.dim(`short ${shortId(b.id)} · seq ${receipt.seq} · hash ${receipt.hash}`)}`,
    `${p.bold('check')}     ${oneLine(b.check_id)}  ${statusWord(b.verdict, p)} ${p.dim(`(${b.reason})`)}`,
    ...(b.detail ? [`${p.bold('detail')}    ${oneLine(b.detail)}`] : []),
    ...(b.duplicate_of !== undefined
      ? [
          `${p.bold('rerun')}     ${b.dedupe_count ?? 1} of receipt ${oneLine(b.duplicate_of)} ${p.dim('(same definition, pins, fingerprint and verdict, inside dedupe_window_seconds)')}`,
        ]
      : []),
    `${p.bold('proves')}    ${b.proves}`,
    `${p.bold('command')}   ${oneLine(command)}  ${p.dim(oneLine(`cwd ${b.cwd} · timeout ${b.timeout_s}s${b.executable ? ` · ${b.executable}` : ''}`))}`,
    `${p.bold('env')}       ${oneLine(b.env_names.join(' '))}`,
    b.ran
      ? `${p.bold('ran')}       ${b.started_at} for ${duration(b.duration_ms)} · exit ${b.exit_code ?? '-'}${b.signal ? ` · signal ${b.signal}` : ''}${b.timed_out ? ' · timed out' : ''}`
      : `${p.bold('ran')}       ${p.yellow('not started')}: stopped before the run`,
    ...sandboxLine(b.sandbox ?? b.service?.sandbox, p),
    ...(b.tests
      ? [
          `${p.bold('tests')}     ${oneLine(b.tests.runner)}: ${b.tests.ran} ran · ${b.tests.passed} passed · ${b.tests.failed} failed · ${b.tests.skipped} skipped`,
        ]
      : []),
    `${p.bold('scope')}     ${b.file_count} files${manifest?.refused.length ? `, ${manifest.refused.length} refused` : ''} · manifest ${b.manifest_digest}`,
    `${p.bold('fingerprint')} ${b.fingerprint}`,
    `${p.bold('spec')}      sha256 ${b.spec_sha256} · definition ${b.definition_digest}`,
    `${p.bold('git')}       ${b.git ? `${b.git.head ?? '(no commits)'}${b.git.dirty ? ' (dirty)' : ''}` : 'not a git work tree'}`,
    `${p.bold('by')}        ${b.actor} · vouch ${b.engine.version} · ${b.platform.os} ${b.platform.arch} node ${b.platform.node}`,
    `${p.bold('chain')}     prev ${b.prev_hash ?? '(first entry)'}`,
    `${p.bold('signed')}    ${receipt.signature === null ? 'no' : `key id ${signatureKeyid(receipt.signature)} ${p.dim('(checked by `vouch status` and `vouch audit`)')}`}`,
  ];
  for (const [name, stream] of [
    ['stdout', b.stdout],
    ['stderr', b.stderr],
  ] as const) {
    if (!stream) continue;
    lines.push(`${p.bold(name)}    ${stream.bytes} bytes · sha256 ${stream.sha256}`);
    if (stream.excerpt.trim()) {
      lines.push(p.dim(`  ── ${stream.truncated ? 'end of ' : ''}${name}, redacted ──`));
      lines.push(
        ...stream.excerpt
          .trimEnd()
          .split('\n')
          .map((line) => `  ${line}`),
      );
    }
  }
  lines.push(`${p.bold('log')}       ${b.log ? `${b.log.bytes} bytes stored, redacted · \`vouch show ${shortId(b.id)} --log\`` : p.dim('none stored')}`);
  if (manifest && manifest.refused.length > 0) {
    lines.push(`${p.bold('refused')}   ${oneLine(manifest.refused.map(([path, why]) => `${path} (${why})`).join(', '))}`);
  }
  if (files && manifest) {
    lines.push(p.bold('files'));
    for (const [path, sha, size, group] of manifest.files)
      lines.push(`  ${sha.slice(0, 16)}  ${String(size).padStart(9)}  ${group.padEnd(8)}  ${oneLine(path)}`);
  }
  return lines.join('\n');
}
