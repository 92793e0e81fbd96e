/**
 * Best-effort redaction of secrets in stored output excerpts. A check that
 * prints a secret has already leaked it to its own terminal; what vouch can
 * do is not keep a copy. Hashes are taken over the raw output, so redaction
 * never changes what a receipt proves.
 */
const PATTERNS: readonly RegExp[] = [
  // Private key blocks, whole.
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  // GitHub tokens: classic and fine-grained.
  /\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
  // OpenAI / Anthropic style keys.
  /\bsk-(ant-)?[A-Za-z0-9_-]{16,}/g,
  // AWS access key ids and secret keys in assignments.
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /(aws_secret_access_key\s*[=:]\s*)[A-Za-z0-9/+]{40}/gi,
  // Slack, Stripe, npm, GitLab tokens.
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\b[rs]k_(live|test)_[A-Za-z0-9]{16,}/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  // Authorization headers.
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/g,
  // JWTs.
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  // password=..., token: ..., api_key="..."
  /((?:password|passwd|secret|token|api[_-]?key)\s*[=:]\s*["']?)[^\s"']{6,}/gi,
];

export const REDACTED = '[REDACTED]';

export function redact(text: string): string {
  let out = text;
  for (const pattern of PATTERNS) {
    out = out.replace(pattern, (match, ...groups: unknown[]) => {
      // Keep an assignment's left-hand side so the excerpt stays readable.
      const lead = typeof groups[0] === 'string' && /[=:]\s*["']?$/.test(groups[0]) ? groups[0] : '';
      return lead + REDACTED;
    });
  }
  return out;
}
