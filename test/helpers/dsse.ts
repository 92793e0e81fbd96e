import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An independent DSSE implementation for tests (not vouch's): the PAE from
 * the DSSE protocol, base64 envelopes, signatures made with a key file from
 * VOUCH_HOME, as anyone holding that file could.
 */
export function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType);
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

export interface TestEnvelope {
  payloadType: string;
  payload: string;
  signatures: { keyid?: string; sig: string }[];
}

export function readBundle(path: string): TestEnvelope[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TestEnvelope);
}

export function payloadOf(envelope: TestEnvelope): any {
  return JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
}

export function signWithKeyFile(home: string, name: string, payloadText: string, payloadType = 'application/vnd.in-toto+json'): TestEnvelope {
  const key = createPrivateKey(readFileSync(join(home, 'keys', `${name}.key`), 'utf8'));
  const payload = Buffer.from(payloadText, 'utf8');
  return { payloadType, payload: payload.toString('base64'), signatures: [{ sig: sign(null, pae(payloadType, payload), key).toString('base64') }] };
}

/** Re-encodes an envelope's payload after `edit`, keeping its signature: a tampered envelope. */
export function tamper(envelope: TestEnvelope, edit: (statement: any) => void): TestEnvelope {
  const statement = payloadOf(envelope);
  edit(statement);
  return { ...envelope, payload: Buffer.from(JSON.stringify(statement)).toString('base64') };
}

export function bundleText(envelopes: readonly TestEnvelope[]): string {
  return envelopes.map((e) => JSON.stringify(e)).join('\n') + '\n';
}
