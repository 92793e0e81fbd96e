import { describe, expect, it } from 'vitest';
import { FAILURE_LINES, failureLines, LINE_WIDTH } from './failure-lines.js';
import type { DecodedLog } from './log-file.js';

function log(stdout: string, stderr = ''): DecodedLog {
  const part = (text: string) => ({ bytes: Buffer.byteLength(text), raw_bytes: Buffer.byteLength(text), dropped_bytes: 0 });
  return {
    header: { format: 'vouch-log/1', receipt: 'r', check: 'c', stdout: part(stdout), stderr: part(stderr) },
    stdout: Buffer.from(stdout),
    stderr: Buffer.from(stderr),
  };
}

describe('failureLines', () => {
  it.each([
    ['TAP', 'not ok 2 - subtracts'],
    ['vitest', ' FAIL  src/a.test.ts > adds'],
    ['a thrown error', 'TypeError: x is not a function'],
    ['a compiler', 'src/a.ts(3,1): error TS2304: cannot find name'],
    ['rustc', 'error[E0308]: mismatched types'],
    ['a check mark', '  ✗ adds numbers'],
    ['vitest cross', '  × adds numbers'],
    ['Python', 'Traceback (most recent call last):'],
    ['Rust', "thread 'main' panicked at src/main.rs:2:5"],
    ['an assertion', 'AssertionError [ERR_ASSERTION]: 1 == 2'],
  ])('picks a %s failure line', (_name, line) => {
    const found = failureLines(log(`ok 1\n${line}\nok 3\n`));
    expect(found.lines).toEqual([{ stream: 'stdout', line: 2, text: line }]);
  });

  it('leaves passing output alone', () => {
    expect(failureLines(log('ok 1 - adds\n Test Files  1 passed (1)\n 0 failed\n')).lines).toEqual([]);
  });

  it('numbers lines per stream and skips lines the tail shows anyway', () => {
    const found = failureLines(log('not ok 1\n', 'x\nerror: bad\nFAIL last\n'), new Set(['FAIL last']));
    expect(found.lines).toEqual([
      { stream: 'stdout', line: 1, text: 'not ok 1' },
      { stream: 'stderr', line: 2, text: 'error: bad' },
    ]);
  });

  it('is bounded in count and width, and counts the rest', () => {
    const many = Array.from({ length: 30 }, (_, i) => `not ok ${i} ${'x'.repeat(300)}`).join('\n');
    const found = failureLines(log(many));
    expect(found.lines).toHaveLength(FAILURE_LINES);
    expect(found.more).toBe(10);
    for (const line of found.lines) expect(line.text.length).toBeLessThanOrEqual(LINE_WIDTH);
    expect(found.lines[0]!.text.endsWith('…')).toBe(true);
  });
});

describe('failureLines skips source code the output quotes', () => {
  it.each([
    ['a Python except clause', '    except TypeError:'],
    ['a raise', '        raise ValueError("bad input")'],
    ["pytest's quoted raise", '>       raise KeyError(name)'],
    ['a JavaScript throw', "      throw new Error('unreachable');"],
    ['a catch', '    } catch (error) {'],
    ['an error class', 'class ParseError(Exception):'],
    ['an import', 'from app.errors import NotFoundError'],
  ])('does not pick %s', (_name, line) => {
    expect(failureLines(log(`ok 1\n${line}\nok 3\n`)).lines).toEqual([]);
  });

  it('skips the line a Python traceback quotes after File "...", line N, and picks the error itself', () => {
    const traceback = ['Traceback (most recent call last):', '  File "app.py", line 3, in <module>', "    handle(TypeError('x'))", "TypeError: 'x'"].join('\n');
    expect(failureLines(log(traceback)).lines.map((l) => l.text)).toEqual(['Traceback (most recent call last):', "TypeError: 'x'"]);
  });

  it("keeps pytest's E line and trims trailing spaces", () => {
    const found = failureLines(log('>       assert add(1, 2) == 3\nE       AssertionError: assert -1 == 3   \n'));
    expect(found.lines.map((l) => l.text)).toEqual(['E       AssertionError: assert -1 == 3']);
  });
});
