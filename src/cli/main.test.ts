import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './io.js';
import { main } from './main.js';

/** An io whose working directory cannot be read: any command that needs it hits an error vouch did not foresee. */
function brokenIo(): { io: CliIo; stdout: () => string; stderr: () => string } {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  err.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const io = {
    stdin: new PassThrough(),
    stdout: out,
    stderr: err,
    env: {},
    get cwd(): string {
      throw new Error('simulated defect: cwd unreadable');
    },
    stderrIsTTY: false,
    stdoutIsTTY: false,
  } satisfies CliIo;
  return { io, stdout: () => stdout, stderr: () => stderr };
}

describe('an internal error (a bug in vouch)', () => {
  it('exits 70 and asks for a bug report naming the version', async () => {
    const run = brokenIo();
    const code = await main(['status'], run.io);
    expect(code).toBe(70);
    expect(run.stderr()).toContain('vouch: internal error: Error: simulated defect');
    expect(run.stderr()).toMatch(/This is a bug in vouch \d+\.\d+\.\d+ \(node v20/);
    expect(run.stdout()).toBe('');
  });

  it('with --json still prints one JSON document on stdout, code "internal"', async () => {
    const run = brokenIo();
    const code = await main(['status', '--json'], run.io);
    expect(code).toBe(70);
    const doc = JSON.parse(run.stdout()) as { ok: boolean; error: { code: string; message: string } };
    expect(doc.ok).toBe(false);
    expect(doc.error.code).toBe('internal');
    expect(doc.error.message).toContain('simulated defect');
  });
});
