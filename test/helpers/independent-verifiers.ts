import { execFileSync } from 'node:child_process';

/**
 * The verifiers that are not vouch, for the tests that check signatures
 * with them (interop.test.ts, exec-receipt.test.ts): openssl, and Debian's
 * python3-cryptography run as /usr/bin/python3 (not whatever python3 is
 * first on PATH). Outside CI a missing one skips those tests visibly; in CI
 * (CI=true) it fails them: .ci/run installs both.
 */
export const CI = process.env.CI === 'true';
export const PYTHON = '/usr/bin/python3';

function works(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const hasOpenssl = works('openssl', ['version']);
export const hasPythonCryptography = works(PYTHON, ['-c', 'from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey']);
