import { describe, expect, it } from 'vitest';
import { generatePair, publicKeyOf } from '../crypto/ed25519.js';
import { decodeBase64, envelopeSignedBy, pae, signEnvelope } from './dsse.js';

describe('DSSE', () => {
  it('encodes the PAE as the DSSE protocol example does', () => {
    // secure-systems-lab/dsse protocol.md test vector.
    expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
  });

  it('counts lengths in bytes, not characters', () => {
    expect(pae('t', Buffer.from('é', 'utf8')).toString('utf8')).toBe('DSSEv1 1 t 2 é');
  });

  it('signs over the PAE: the signature binds the payload type too', () => {
    const pair = generatePair();
    const key = { name: 'k', privateKey: pair.privateKey, publicKey: publicKeyOf(pair.publicKey) };
    const payload = Buffer.from('{"a":1}');
    const envelope = signEnvelope('application/vnd.in-toto+json', payload, key);
    expect(envelope.signatures[0]!.keyid).toBe(key.publicKey.keyid);
    expect(envelopeSignedBy('application/vnd.in-toto+json', payload, envelope.signatures, key.publicKey)).toBe(true);
    expect(envelopeSignedBy('application/json', payload, envelope.signatures, key.publicKey)).toBe(false);
    expect(envelopeSignedBy('application/vnd.in-toto+json', Buffer.from('{"a":2}'), envelope.signatures, key.publicKey)).toBe(false);
    expect(envelopeSignedBy('application/vnd.in-toto+json', payload, [{ sig: 42 }, null], key.publicKey)).toBe(false);
  });

  it('reads standard and URL-safe base64 and nothing else', () => {
    expect(decodeBase64('+/8=')?.toString('hex')).toBe('fbff');
    expect(decodeBase64('-_8=')?.toString('hex')).toBe('fbff');
    expect(decodeBase64('not base64!')).toBeUndefined();
  });
});
