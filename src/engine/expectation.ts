import { lstatSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { BoundedCapture } from '../runner/capture.js';
import { isInside } from '../scope/scan.js';
import type { Expectation } from '../spec/model.js';

export type ExpectationOutcome =
  | { readonly kind: 'met' }
  | { readonly kind: 'exit_mismatch'; readonly detail: string }
  | { readonly kind: 'unmet'; readonly detail: string }
  /** The output was too long to search whole and the kept part did not match. */
  | { readonly kind: 'undecidable'; readonly detail: string };

/** Judges a finished command's exit code and output against its expectation. */
export function judgeExpectation(
  expect: Expectation,
  exitCode: number,
  output: { readonly stdout: BoundedCapture; readonly stderr: BoundedCapture },
  root: string,
): ExpectationOutcome {
  const wanted = expect.kind === 'exit' ? expect.code : 0;
  if (exitCode !== wanted) return { kind: 'exit_mismatch', detail: `exited ${exitCode}, expected ${wanted}` };
  switch (expect.kind) {
    case 'exit':
      return { kind: 'met' };
    case 'regex': {
      const pattern = new RegExp(expect.pattern, 'm');
      let complete = true;
      for (const stream of [output.stdout, output.stderr]) {
        const text = stream.text();
        if (pattern.test(text.head) || pattern.test(text.tail)) return { kind: 'met' };
        complete &&= text.complete;
      }
      return complete
        ? { kind: 'unmet', detail: `no output matched /${expect.pattern}/` }
        : {
            kind: 'undecidable',
            detail: `output was longer than the capture window and the kept part did not match /${expect.pattern}/`,
          };
    }
    case 'file_exists':
      return fileExists(root, expect.path) ? { kind: 'met' } : { kind: 'unmet', detail: `${expect.path} does not exist inside the workspace after the run` };
  }
}

function fileExists(root: string, path: string): boolean {
  const absolute = join(root, path);
  if (!lstatSync(absolute, { throwIfNoEntry: false })) return false;
  try {
    return isInside(root, realpathSync(absolute));
  } catch {
    return false;
  }
}
