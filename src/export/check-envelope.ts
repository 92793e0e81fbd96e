import { canonicalize } from '../core/jcs.js';
import type { PublicKey } from '../crypto/ed25519.js';
import type { BundleFinding, EnvelopeCheck } from './bundle-finding.js';
import { decodeBase64, envelopeSignedBy, INTOTO_PAYLOAD_TYPE } from './dsse.js';
import { summarizeStatement } from './summarize.js';

/**
 * Checks one line of a bundle offline: a DSSE envelope of an in-toto
 * statement, signed (over the PAE) by one of `keys`, whose payload is
 * canonical JSON of a statement vouch exports. Nothing after a failed
 * signature is trusted, so nothing after it is read.
 */
export function checkEnvelope(line: number, text: string, keys: readonly PublicKey[]): EnvelopeCheck {
  const fail = (finding: BundleFinding): EnvelopeCheck => ({ line, summary: null, findings: [finding] });
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return fail({ code: 'envelope_invalid', detail: 'the line is not JSON' });
  }
  const e = envelope as { payloadType?: unknown; payload?: unknown; signatures?: unknown } | null;
  if (typeof e !== 'object' || e === null || typeof e.payload !== 'string' || typeof e.payloadType !== 'string' || !Array.isArray(e.signatures)) {
    return fail({ code: 'envelope_invalid', detail: 'not a DSSE envelope: payload, payloadType and signatures are required' });
  }
  if (e.payloadType !== INTOTO_PAYLOAD_TYPE) {
    return fail({ code: 'envelope_invalid', detail: `payloadType is ${JSON.stringify(e.payloadType)}, not ${INTOTO_PAYLOAD_TYPE}` });
  }
  const payload = decodeBase64(e.payload);
  if (!payload) return fail({ code: 'envelope_invalid', detail: 'the payload is not base64' });
  if (!keys.some((key) => envelopeSignedBy(e.payloadType as string, payload, e.signatures as unknown[], key))) {
    return fail({
      code: 'signature_invalid',
      detail: `no signature verifies under the given key${keys.length === 1 ? '' : 's'}: the envelope was altered or signed by another key`,
    });
  }
  let statement: unknown;
  const payloadText = payload.toString('utf8');
  try {
    statement = JSON.parse(payloadText);
  } catch {
    return fail({ code: 'statement_invalid', detail: 'the signed payload is not JSON' });
  }
  const findings: BundleFinding[] = [];
  if (canonicalize(statement) !== payloadText)
    findings.push({ code: 'not_canonical', detail: 'the signed payload is not canonical JSON (RFC 8785): not produced by vouch export' });
  const summary = summarizeStatement(statement);
  if (typeof summary === 'string') return { line, summary: null, findings: [...findings, { code: 'statement_invalid', detail: summary }] };
  return { line, summary, findings };
}
