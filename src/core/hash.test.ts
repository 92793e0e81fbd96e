import { createHash, createHmac, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { hmacSha256, sameBytes, sha256Of } from './hash.js';
import { nativeAddon } from './native.js';

/** Runs `body` with the addon turned off (VOUCH_NATIVE=0): node:crypto answers. */
function withoutAddon<T>(body: () => T): T {
  process.env.VOUCH_NATIVE = '0';
  try {
    return body();
  } finally {
    delete process.env.VOUCH_NATIVE;
  }
}

/** Inputs of every shape: empty, one byte, text with multi-byte UTF-8, block-boundary sizes, a large buffer, split anywhere. */
function cases(): (string | Uint8Array)[][] {
  const big = randomBytes(3 << 20);
  const out: (string | Uint8Array)[][] = [
    [],
    [''],
    [Buffer.alloc(0)],
    ['a'],
    ['vouch spec cache\0', '{"checks":[]}'],
    ['ünïcode ✓ 😀', Buffer.from([0, 255, 128])],
  ];
  for (const size of [55, 56, 63, 64, 65, 127, 128, 129, 1000]) out.push([randomBytes(size)]);
  out.push([big], [big.subarray(0, 12345), big.subarray(12345)], ['prefix\0', big.subarray(1)]);
  for (let i = 0; i < 20; i++) {
    const data = randomBytes(1 + Math.floor(Math.random() * 5000));
    const cut = Math.floor(Math.random() * data.length);
    out.push([data.subarray(0, cut), data.toString('latin1', cut)]);
  }
  return out;
}

afterEach(() => {
  delete process.env.VOUCH_NATIVE;
});

describe('sha256Of and hmacSha256', () => {
  it('come from Node’s own OpenSSL through the addon here (npm ci builds it)', () => {
    const { addon } = nativeAddon();
    expect(typeof addon?.sha256).toBe('function');
    expect(typeof addon?.hmacSha256).toBe('function');
  });

  it('give node:crypto’s bytes, through the addon and without it, for every shape of input', () => {
    const keys = [Buffer.alloc(0), Buffer.from('k'), randomBytes(32), randomBytes(64), randomBytes(65), randomBytes(200)];
    for (const parts of cases()) {
      const hash = createHash('sha256');
      for (const part of parts) hash.update(part);
      const expected = hash.digest('hex');
      expect(sha256Of(...parts).toString('hex')).toBe(expected);
      expect(withoutAddon(() => sha256Of(...parts)).toString('hex')).toBe(expected);
      for (const key of keys) {
        const mac = createHmac('sha256', key);
        for (const part of parts) mac.update(part);
        const macHex = mac.digest('hex');
        expect(hmacSha256(key, ...parts).toString('hex')).toBe(macHex);
        expect(withoutAddon(() => hmacSha256(key, ...parts)).toString('hex')).toBe(macHex);
      }
    }
  });

  it('match the published test vectors (FIPS 180-2, RFC 4231 case 2)', () => {
    expect(sha256Of('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hmacSha256(Buffer.from('Jefe'), 'what do ya want ', 'for nothing?').toString('hex')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('a key that differs in one bit gives another MAC (the key is used, not ignored)', () => {
    const key = randomBytes(32);
    const other = Buffer.from(key);
    other[31]! ^= 1;
    expect(hmacSha256(key, 'body').equals(hmacSha256(other, 'body'))).toBe(false);
  });

  it('refuse what is not bytes, in the addon, instead of hashing something else', () => {
    const { addon } = nativeAddon();
    expect(() => addon!.sha256!(['text' as unknown as Uint8Array])).toThrow(/Uint8Array/);
    expect(() => addon!.hmacSha256!('key' as unknown as Uint8Array, [])).toThrow(/Uint8Array/);
    expect(() => addon!.sha256!('not an array' as unknown as Uint8Array[])).toThrow(/array/);
  });
});

describe('sameBytes', () => {
  it('is true for equal bytes and false for a difference anywhere or another length', () => {
    const mac = randomBytes(32);
    expect(sameBytes(mac, Buffer.from(mac))).toBe(true);
    for (const at of [0, 15, 31]) {
      const forged = Buffer.from(mac);
      forged[at]! ^= 0x80;
      expect(sameBytes(mac, forged)).toBe(false);
    }
    expect(sameBytes(mac, mac.subarray(0, 31))).toBe(false);
    expect(sameBytes(mac.subarray(0, 0), Buffer.alloc(0))).toBe(true);
  });
});
