import { createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../core/digest.js';
import { generatePair, publicKeyFromHex, publicKeyFromPem, publicKeyOf, publicKeyPem, signBytes, verifyBytes } from './ed25519.js';

// RFC 8032, section 7.1, TEST 1 and TEST 2: an independent check that node:crypto is Ed25519 as specified.
const RFC8032 = [
  {
    secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    public: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    public: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
];

/** A PKCS#8 DER wrapper around a raw 32-byte Ed25519 seed. */
function privateFromSeed(hex: string) {
  return createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'pkcs8',
  });
}

describe('Ed25519 through node:crypto', () => {
  it.each(RFC8032)('matches RFC 8032 test vector (public $public)', (vector) => {
    const privateKey = privateFromSeed(vector.secret);
    expect(publicKeyOf(privateKey).hex).toBe(vector.public);
    const message = Buffer.from(vector.message, 'hex');
    expect(signBytes(message, privateKey).toString('hex')).toBe(vector.signature);
    expect(verifyBytes(message, Buffer.from(vector.signature, 'hex'), publicKeyFromHex(vector.public))).toBe(true);
  });

  it('round-trips a public key through hex and PEM, with the key id the SHA-256 of the raw key', () => {
    const pair = generatePair();
    const key = publicKeyOf(pair.publicKey);
    expect(publicKeyFromHex(key.hex).keyid).toBe(key.keyid);
    expect(publicKeyFromPem(publicKeyPem(key)).hex).toBe(key.hex);
    expect(key.keyid).toBe(sha256(Buffer.from(key.hex, 'hex')));
  });

  it.each([
    ['a flipped message bit', (m: Buffer, s: Buffer) => [Buffer.from(m.map((b, i) => (i === 0 ? b ^ 1 : b))), s]],
    ['a flipped signature bit', (m: Buffer, s: Buffer) => [m, Buffer.from(s.map((b, i) => (i === 5 ? b ^ 1 : b)))]],
    ['a truncated signature', (m: Buffer, s: Buffer) => [m, s.subarray(0, 63)]],
    ['an empty signature', (m: Buffer) => [m, Buffer.alloc(0)]],
  ])('rejects %s', (_name, mutate) => {
    const pair = generatePair();
    const message = Buffer.from('{"verdict":"FAIL"}');
    const [m, s] = mutate(message, signBytes(message, pair.privateKey)) as [Buffer, Buffer];
    expect(verifyBytes(m, s, publicKeyOf(pair.publicKey))).toBe(false);
  });

  it('rejects a signature by another key', () => {
    const message = Buffer.from('receipt');
    expect(verifyBytes(message, signBytes(message, generatePair().privateKey), publicKeyOf(generatePair().publicKey))).toBe(false);
  });

  it.each([
    ['too short', 'abcd'],
    ['not hex', 'z'.repeat(64)],
  ])('refuses a hex public key that is %s', (_name, hex) => {
    expect(() => publicKeyFromHex(hex)).toThrow(/64 hex characters/);
  });
});
