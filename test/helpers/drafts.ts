import { newId } from '../../src/core/ids.js';
import { sha256 } from '../../src/core/digest.js';
import { manifestDigest, type Manifest } from '../../src/scope/manifest.js';
import { fingerprintDigest } from '../../src/engine/fingerprint.js';
import type { ReceiptDraft } from '../../src/receipt/receipt.js';

/** A small manifest whose content depends on `seed`. */
export function manifestOf(seed: string): Manifest {
  return { files: [[`src/${seed}.ts`, sha256(seed), seed.length, 'source']], refused: [] };
}

/** A receipt draft as the engine would make one, finished at `at`. */
export function draftOf(checkId: string, manifest: Manifest, at = new Date(), verdict: 'PASS' | 'FAIL' = 'PASS'): ReceiptDraft {
  const definition = sha256(`definition of ${checkId}`);
  const digest = manifestDigest(manifest);
  return {
    v: 1,
    kind: 'receipt',
    id: newId(at.getTime()),
    check_id: checkId,
    definition_digest: definition,
    spec_sha256: sha256('spec'),
    argv: ['true'],
    shell: false,
    cwd: '.',
    timeout_s: 120,
    env_names: ['PATH'],
    executable: '/usr/bin/true',
    ran: true,
    started_at: at.toISOString(),
    finished_at: at.toISOString(),
    duration_ms: 1,
    exit_code: verdict === 'PASS' ? 0 : 1,
    signal: null,
    timed_out: false,
    stdout: null,
    stderr: null,
    manifest_digest: digest,
    file_count: manifest.files.length,
    fingerprint: fingerprintDigest(definition, digest),
    verdict,
    reason: verdict === 'PASS' ? 'ok' : 'exit_code',
    detail: null,
    proves: 'it ran',
    engine: { name: 'vouch', version: 'test' },
    platform: { os: 'linux', arch: 'x64', node: 'v20' },
    git: null,
    actor: 'cli',
  };
}
