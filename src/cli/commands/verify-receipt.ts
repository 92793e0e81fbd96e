import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fail } from '../../core/problem.js';
import { publicKeyArg } from '../../crypto/key-arg.js';
import { checkExecReceipt, isExecReceiptText } from '../../exec/verify-file.js';
import type { EnvelopeCheck } from '../../export/bundle-finding.js';
import { checkEnvelope } from '../../export/check-envelope.js';
import { compareDefinition } from '../../export/current-definition.js';
import { compareWithWorkspace } from '../../export/current-files.js';
import { renderBundleChecks } from '../../render/bundle.js';
import { renderExecFileCheck } from '../../render/exec.js';
import { paint } from '../../render/color.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';

export const help = `usage: vouch verify-receipt FILE --key PUB [--against-workspace] [--require-pass] [--json]

Checks an exported bundle (.intoto.jsonl, from \`vouch export\`) offline, line
by line: each DSSE envelope must be signed (Ed25519 over the DSSE PAE) by the
given key, and its payload must be a canonical in-toto Statement v1 that vouch
exports. Needs no ledger; FILE - reads standard input.

An exec receipt (from \`vouch exec --receipt FILE\`) is checked too: its body,
put in RFC 8785 canonical form, must hash to its recorded hash, and its
Ed25519 signature must verify over those bytes under the given key
(--against-workspace and --require-pass do not apply; --json:
{"ok", "file", "exec": {"id", "decision", "exit_code", "findings"}}).

  --key PUB            the public key to trust (repeatable): 64 hex characters,
                       a file holding one (PEM or hex), or a key name under VOUCH_HOME/keys
  --against-workspace  also check that every file the statements name (sources,
                       tests, artifacts) has the recorded SHA-256 in this
                       workspace now (files added since are not detected), and
                       that the check is defined in its vouch.yaml exactly as
                       when it ran (definition digest; else definition_changed)
  --require-pass       also fail a statement whose verdict is not PASS
  --json               {"ok", "file", "envelopes": [{"line", "ok", "predicate",
                       "check", "receipt", "verdict", "files", "findings": [{"code", "detail", "path"?}]}]}

exit: 0 every envelope verifies, 1 some does not, 2 usage, unreadable bundle or key`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('verify-receipt', args, {
    key: { type: 'string', multiple: true },
    'against-workspace': { type: 'boolean' },
    'require-pass': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) {
    return fail({ code: 'usage', message: 'expected exactly one bundle file', where: 'vouch verify-receipt', hint: '`vouch export --out FILE` writes one' });
  }
  if (!values.key || values.key.length === 0) {
    return fail({
      code: 'usage',
      message: 'verify-receipt needs the public key to trust: --key PUB',
      where: 'vouch verify-receipt',
      hint: 'get it from whoever signed the bundle (`vouch keys export-public`), never from the bundle itself',
    });
  }
  const home = vouchHome(cli.io.env);
  const keys = values.key.map((value) => {
    const key = publicKeyArg(value, home, cli.io.cwd, '--key');
    return key.ok ? key.value.publicKey : fail(key.error);
  });
  const path = file === '-' ? '-' : resolve(cli.io.cwd, file);
  const text = await readBundle(cli, path);
  if (isExecReceiptText(text)) {
    const check = checkExecReceipt(text, keys);
    const good = check.findings.length === 0;
    if (values.json)
      json(cli, {
        ok: good,
        file: path,
        exec: { id: check.body?.id ?? null, decision: check.body?.decision ?? null, exit_code: check.body?.exit_code ?? null, findings: check.findings },
      });
    else out(cli, renderExecFileCheck(path, check, paint(cli.color)));
    return good ? EXIT.ok : EXIT.notOk;
  }
  const lines = text
    .split('\n')
    .map((content, i) => ({ line: i + 1, content: content.trim() }))
    .filter((entry) => entry.content !== '');
  if (lines.length === 0)
    return fail({ code: 'bundle_invalid', message: 'the bundle holds no envelope', where: path, expected: 'one DSSE envelope (JSON) per line' });

  const workspace = values['against-workspace'] ? cli.session.workspace() : undefined;
  const root = workspace?.root;
  const spec = workspace ? await cli.session.spec(workspace) : undefined;
  const checks: EnvelopeCheck[] = lines.map(({ line, content }) => {
    const check = checkEnvelope(line, content, keys);
    if (!check.summary) return check;
    const findings = [...check.findings];
    if (values['require-pass'] && check.summary.verdict !== 'PASS')
      findings.push({ code: 'not_pass', detail: `the verdict is ${check.summary.verdict ?? 'missing'}` });
    if (root !== undefined) findings.push(...compareWithWorkspace(root, check.summary.files));
    const definition = spec && compareDefinition(spec, check.summary);
    if (definition) findings.push(definition);
    return { ...check, findings };
  });
  const ok = checks.every((check) => check.findings.length === 0);
  if (values.json) {
    json(cli, {
      ok,
      file: path,
      envelopes: checks.map((check) => ({
        line: check.line,
        ok: check.findings.length === 0,
        predicate: check.summary?.predicate ?? null,
        check: check.summary?.check ?? null,
        receipt: check.summary?.receipt ?? null,
        verdict: check.summary?.verdict ?? null,
        files: check.summary?.files.length ?? 0,
        findings: check.findings,
      })),
    });
  } else {
    out(cli, renderBundleChecks(path, checks, paint(cli.color)));
  }
  return ok ? EXIT.ok : EXIT.notOk;
}

async function readBundle(cli: Cli, path: string): Promise<string> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of cli.io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    return fail({ code: 'bundle_invalid', message: `cannot read the bundle: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where: path });
  }
}
