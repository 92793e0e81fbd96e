import { noteLoaded } from '../core/start.js';
import { publicKeyOf, signBytes, verifyBytes, type PublicKey } from '../crypto/ed25519.js';
import type { SigningKey } from '../crypto/keystore.js';

noteLoaded('export');

/** The payload type DSSE envelopes of in-toto statements carry. */
export const INTOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

/** A DSSE JSON envelope (secure-systems-lab/dsse, envelope.md). */
export interface Envelope {
  readonly payloadType: string;
  /** Base64 of the serialized payload. */
  readonly payload: string;
  readonly signatures: readonly { readonly keyid: string; readonly sig: string }[];
}

/**
 * DSSE's pre-authentication encoding: what is actually signed. Binding the
 * payload type into the signed bytes stops a signature over one kind of
 * document being replayed as another.
 * PAE = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in bytes, ASCII decimal.
 */
export function pae(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

export function signEnvelope(payloadType: string, payload: Uint8Array, key: SigningKey): Envelope {
  const sig = signBytes(pae(payloadType, payload), key.privateKey).toString('base64');
  return { payloadType, payload: Buffer.from(payload).toString('base64'), signatures: [{ keyid: publicKeyOf(key.privateKey).keyid, sig }] };
}

/** True when at least one of the envelope's signatures verifies under `key`. The keyid is a hint only and is not trusted. */
export function envelopeSignedBy(payloadType: string, payload: Uint8Array, signatures: readonly unknown[], key: PublicKey): boolean {
  const message = pae(payloadType, payload);
  return signatures.some((entry) => {
    const sig = (entry as { sig?: unknown } | null)?.sig;
    return typeof sig === 'string' && verifyBytes(message, decodeBase64(sig) ?? Buffer.alloc(0), key);
  });
}

/** Standard or URL-safe base64 (DSSE allows both); undefined when it is neither. */
export function decodeBase64(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return undefined;
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}
