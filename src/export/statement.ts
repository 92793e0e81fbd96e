import { noteLoaded } from '../core/start.js';
import type { Manifest, ManifestFile } from '../scope/manifest.js';
import type { StoredReceipt } from '../receipt/receipt.js';

noteLoaded('intoto');

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const LINK_PREDICATE = 'https://in-toto.io/attestation/link/v0.3';
export const TEST_RESULT_PREDICATE = 'https://in-toto.io/attestation/test-result/v0.1';

/** An in-toto ResourceDescriptor naming a file by path and SHA-256. */
export interface FileDescriptor {
  readonly name: string;
  readonly digest: { readonly sha256: string };
}

export interface Statement {
  readonly _type: typeof STATEMENT_TYPE;
  readonly subject: readonly FileDescriptor[];
  readonly predicateType: typeof LINK_PREDICATE | typeof TEST_RESULT_PREDICATE;
  readonly predicate: Record<string, unknown>;
}

const describe = ([path, sha256]: ManifestFile): FileDescriptor => ({ name: path, digest: { sha256 } });

/**
 * One receipt as an in-toto Statement v1. A run that left artifacts is a
 * step that produced something: the link v0.3 predicate, whose subjects are
 * the artifacts and whose materials are the sources and tests. A run with
 * no artifacts tested the files it covered: the test-result v0.1 predicate,
 * whose subjects are those files. Either way the receipt's own hash, its
 * verdict and its place in the chain (prev_hash) travel with it.
 */
export function receiptStatement(receipt: StoredReceipt, manifest: Manifest): Statement {
  const b = receipt.body;
  const materials = manifest.files.filter((file) => file[3] !== 'artifact').map(describe);
  const artifacts = manifest.files.filter((file) => file[3] === 'artifact').map(describe);
  const command = b.shell ? ['/bin/sh', '-c', ...b.argv] : [...b.argv];
  const run = {
    verdict: b.verdict,
    reason: b.reason,
    detail: b.detail,
    exit_code: b.exit_code,
    signal: b.signal,
    timed_out: b.timed_out,
    ran: b.ran,
    stdout: b.stdout && { sha256: b.stdout.sha256, bytes: b.stdout.bytes },
    stderr: b.stderr && { sha256: b.stderr.sha256, bytes: b.stderr.bytes },
  };
  const receiptRef = { id: b.id, sha256: receipt.hash, prev_hash: b.prev_hash };
  const environment = {
    vouch: b.engine.version,
    platform: b.platform,
    cwd: b.cwd,
    env_names: b.env_names,
    executable: b.executable,
    git: b.git,
    spec_sha256: b.spec_sha256,
    definition_digest: b.definition_digest,
    fingerprint: b.fingerprint,
    manifest_digest: b.manifest_digest,
    started_at: b.started_at,
    finished_at: b.finished_at,
    duration_ms: b.duration_ms,
    actor: b.actor,
    proves: b.proves,
  };
  if (artifacts.length > 0) {
    return {
      _type: STATEMENT_TYPE,
      subject: artifacts,
      predicateType: LINK_PREDICATE,
      predicate: {
        name: b.check_id,
        command,
        materials,
        byproducts: { 'return-value': b.exit_code, ...run, receipt: receiptRef },
        environment,
      },
    };
  }
  const passed = b.verdict === 'PASS';
  return {
    _type: STATEMENT_TYPE,
    // A scope that matched nothing (allow_missing) still names what configured the run.
    subject: materials.length > 0 ? materials : [{ name: 'vouch.yaml', digest: { sha256: b.spec_sha256 } }],
    predicateType: TEST_RESULT_PREDICATE,
    predicate: {
      // UNKNOWN is not a pass: it is reported as FAILED, with the verdict itself in the annotations.
      result: passed ? 'PASSED' : 'FAILED',
      configuration: [
        { name: 'vouch.yaml', digest: { sha256: b.spec_sha256 } },
        {
          name: `vouch-receipt:${b.id}`,
          digest: { sha256: receipt.hash },
          annotations: { check_id: b.check_id, command, ...run, receipt: receiptRef, environment },
        },
      ],
      passedTests: passed ? [b.check_id] : [],
      warnedTests: [],
      failedTests: passed ? [] : [b.check_id],
    },
  };
}
