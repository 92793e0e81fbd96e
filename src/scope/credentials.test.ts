import { describe, expect, it } from 'vitest';
import { isCredentialPath } from './credentials.js';

describe('isCredentialPath', () => {
  it.each([
    '.env',
    'app/.env.local',
    '.env.production',
    'certs/server.pem',
    'tls/server.KEY',
    '.ssh/config',
    'home/.ssh/known_hosts',
    'id_rsa',
    'keys/id_ed25519.pub',
    'auth.json',
    '.codex/auth.json',
    '.npmrc',
    'pkg/.npmrc',
    '.netrc',
    '.aws/credentials',
    '.gnupg/pubring.kbx',
    'store.p12',
    '.git-credentials',
    'home/.SSH/known_hosts',
    'deep/er/.Aws/credentials',
    'Auth.JSON',
    'pkg/.NPMRC',
    'ID_RSA',
  ])('refuses %s', (path) => {
    expect(isCredentialPath(path)).toBe(true);
  });

  it.each([
    'src/env.ts',
    'src/keyboard.ts',
    'docs/ssh.md',
    'environment.yaml',
    'src/auth.json.ts',
    'monkey.txt',
    'ssh/config',
    'a.ssh/b',
    'src/.sshrc/x',
    '.github/env.yml',
  ])('allows %s', (path) => {
    expect(isCredentialPath(path)).toBe(false);
  });
});
