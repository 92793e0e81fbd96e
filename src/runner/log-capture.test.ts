import { describe, expect, it } from 'vitest';
import { LogCapture } from './log-capture.js';

function capture(chunks: readonly string[], cap?: number) {
  const log = new LogCapture(cap);
  for (const chunk of chunks) log.write(Buffer.from(chunk));
  const kept = log.finish();
  return { ...kept, text: kept.text.toString('utf8') };
}

describe('LogCapture', () => {
  it('redacts a secret the child wrote in two chunks', () => {
    const kept = capture(['ok 1\npassword=hun', 'ter2hunter2\nok 2\n']);
    expect(kept.text).toBe('ok 1\npassword=[REDACTED]\nok 2\n');
    expect(kept.rawBytes).toBe(34);
  });

  it('redacts a private key block across lines and chunks as one [REDACTED]', () => {
    const kept = capture(['before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNz', 'aC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nafter\n']);
    expect(kept.text).toBe('before\n[REDACTED]\nafter\n');
    expect(kept.text).not.toContain('b3BlbnNz');
  });

  it('keeps a last line without a newline', () => {
    expect(capture(['a\nb']).text).toBe('a\nb');
  });

  it('past the cap keeps head and tail and says how many bytes were dropped', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')}\n`);
    const kept = capture([lines.join('')], 400);
    expect(kept.rawBytes).toBe(900);
    expect(kept.text.startsWith('line 000\n')).toBe(true);
    expect(kept.text.endsWith('line 099\n')).toBe(true);
    expect(kept.droppedBytes).toBeGreaterThan(0);
    expect(kept.text).toContain(`[vouch: ${kept.droppedBytes} bytes of output dropped here`);
    expect(kept.text).not.toContain('line 050');
  });

  it('follows a private key block whose BEGIN line was dropped from the middle', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler ${i}\n`).join('');
    const kept = capture(
      [filler(30), '-----BEGIN RSA PRIVATE KEY-----\n', 'c2VjcmV0a2V5bWF0ZXJpYWw=\n'.repeat(40), '-----END RSA PRIVATE KEY-----\n', 'tail\n'],
      400,
    );
    expect(kept.text).not.toContain('c2VjcmV0');
    expect(kept.text.endsWith('tail\n')).toBe(true);
  });
});
