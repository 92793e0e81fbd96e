import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rows } from './helpers/ledger-db.js';
import { Rig } from './helpers/rig.js';

/**
 * A check that writes the environment it was given to env.json, then exits
 * with EXIT (default 0), saying (when it fails) what a check that misses a
 * variable says.
 */
const ENV_CHECK = `version: 1
checks:
  - id: env
    run: ["node", "-e", "require('fs').writeFileSync('env.json', JSON.stringify(process.env)); const code = Number(process.argv[1] ?? 0); if (code) console.error('Error: environment variable DEPLOY_TARGET is not set'); process.exit(code)", "EXIT_CODE"]
    sources: ["src/**"]
`;

function envCheck(exitCode: number, extra = ''): string {
  return ENV_CHECK.replace('EXIT_CODE', String(exitCode)) + extra;
}

/** Every file under dir, as bytes (the ledger, its WAL, caches, trust records). */
function allBytes(dir: string): Buffer[] {
  const found: Buffer[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...allBytes(path));
    else found.push(readFileSync(path));
  }
  return found;
}

function latestBody(rig: Rig): Record<string, unknown> {
  const receipts = rows(rig).filter((row) => row.kind === 'receipt');
  return JSON.parse(receipts.at(-1)!.body) as Record<string, unknown>;
}

describe('the default environment of a check', () => {
  it('passes NODE_EXTRA_CA_CERTS and the other certificate paths, and records their names (never values) in the receipt', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(envCheck(0));
    const certs = {
      NODE_EXTRA_CA_CERTS: '/etc/corp/ca-extra.pem',
      SSL_CERT_FILE: '/etc/corp/bundle.pem',
      SSL_CERT_DIR: '/etc/corp/certs',
      REQUESTS_CA_BUNDLE: '/etc/corp/requests.pem',
      CURL_CA_BUNDLE: '/etc/corp/curl.pem',
      GIT_SSL_CAINFO: '/etc/corp/git.pem',
      PIP_CERT: '/etc/corp/pip.pem',
    };
    const result = await rig.run(['verify', '--json'], { env: certs });
    expect(result.json().checks[0].status).toBe('PASS');
    const env = JSON.parse(rig.read('env.json')) as Record<string, string>;
    for (const [name, value] of Object.entries(certs)) expect(env[name], name).toBe(value);

    const body = latestBody(rig);
    expect(body.env_names).toEqual(expect.arrayContaining(Object.keys(certs)));
    // Names only: no value is recorded beside them (the check's own output may still quote one).
    expect((body.env_names as string[]).every((name) => /^[A-Z_][A-Z0-9_]*$/.test(name))).toBe(true);
    expect(JSON.stringify({ ...body, stdout: null, stderr: null })).not.toContain('/etc/corp');
  });

  it('keeps proxies out unless the check names them: a proxy URL can carry a password', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(envCheck(0));
    await rig.run(['verify'], {
      env: { HTTPS_PROXY: 'http://user:pw@proxy:3128', https_proxy: 'http://user:pw@proxy:3128', NODE_OPTIONS: '--max-old-space-size=1000', TERM: 'xterm' },
    });
    const env = JSON.parse(rig.read('env.json')) as Record<string, string>;
    expect(env.HTTPS_PROXY).toBeUndefined();
    expect(env.https_proxy).toBeUndefined();
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(env.TERM).toBeUndefined();
  });

  it('names the variables a failing check was not given, and the env: line that would pass one, without a value', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(envCheck(1));
    const secret = 'ghp_Q7d9LxVv3k2mN8pR4tY6wZ1aB5cE0fG2hJ4k';
    const callerEnv = {
      GITHUB_TOKEN: secret,
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      NPM_CONFIG_REGISTRY: 'https://npm.corp.example/',
    };

    const text = await rig.run(['verify'], { env: callerEnv });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/not passed to the check \(names only\): .*AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, NPM_CONFIG_REGISTRY/);
    // The example is never a credential-shaped name.
    expect(text.stdout).toContain('env: ["NPM_CONFIG_REGISTRY"]');
    expect(text.stdout).toContain('vouch allow');

    const json = await rig.run(['verify', '--json'], { env: callerEnv });
    const check = json.json().checks[0];
    expect(check.status).toBe('FAIL');
    expect(check.withheld_env).toEqual(expect.arrayContaining(['AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'NPM_CONFIG_REGISTRY']));
    // vouch's own variables and those the check got are not "withheld".
    expect(check.withheld_env).not.toContain('VOUCH_HOME');
    expect(check.withheld_env).not.toContain('PATH');

    const env = JSON.parse(rig.read('env.json')) as Record<string, string>;
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    for (const output of [text.stdout, text.stderr, json.stdout, json.stderr]) {
      expect(output).not.toContain(secret);
      expect(output).not.toContain('wJalrXUtnFEMI');
      expect(output).not.toContain('npm.corp.example');
    }
  });

  it("does not name withheld variables, nor hint at env:, when the failure reads like the code's (an assertion), not the environment's", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(`version: 1
checks:
  - id: unit
    run: ["node", "-e", "require('assert').strictEqual(1 + 2, 4)"]
    sources: ["src/**"]
`);
    const env = { NPM_CONFIG_REGISTRY: 'https://npm.corp.example/', AWS_CA_BUNDLE: '/etc/ca.pem' };
    const text = await rig.run(['verify'], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('AssertionError');
    expect(text.stdout).not.toContain('not passed to the check');
    expect(text.stdout).not.toContain('env: [');
    const json = await rig.run(['verify', '--json'], { env });
    expect(json.json().checks[0].withheld_env).toBeUndefined();
  });

  it('names them when the command could not be found (a failure of the environment)', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(`version: 1
checks:
  - id: lint
    run: ["sh", "-c", "no-such-linter-here src"]
    sources: ["src/**"]
`);
    const json = await rig.run(['verify', '--json'], { env: { LINTER_HOME: '/opt/linter' } });
    expect(json.json().checks[0].withheld_env).toEqual(expect.arrayContaining(['LINTER_HOME']));
  });

  it('does not name withheld variables when the check passes', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(envCheck(0));
    const result = await rig.run(['verify', '--json'], { env: { NPM_CONFIG_REGISTRY: 'https://npm.corp.example/' } });
    expect(result.json().checks[0].status).toBe('PASS');
    expect(result.json().checks[0].withheld_env).toBeUndefined();
  });

  it('a name the check lists in env: is given to it and not named as withheld', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec(envCheck(1, '    env: ["NPM_CONFIG_REGISTRY"]\n'));
    const result = await rig.run(['verify', '--json'], { env: { NPM_CONFIG_REGISTRY: 'https://npm.corp.example/', OTHER_SETTING: 'x' } });
    const check = result.json().checks[0];
    expect(check.withheld_env).toEqual(['OTHER_SETTING']);
    expect((JSON.parse(rig.read('env.json')) as Record<string, string>).NPM_CONFIG_REGISTRY).toBe('https://npm.corp.example/');
  });

  it('adversarial: a secret in the caller environment never reaches stdout, stderr, the ledger or vouch state, pass or fail', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    const secret = 'sk_live_ADVERSARIAL_4f1c9e2b7d3a8c6e';
    // A check that tries to print every variable it can see, then fails.
    await rig.spec(`version: 1
checks:
  - id: leak
    run: ["node", "-e", "console.log(JSON.stringify(process.env)); console.error(Object.values(process.env).join(' ')); console.error('DEPLOY_TARGET is not set'); process.exit(3)"]
    sources: ["src/**"]
`);
    const env = { STRIPE_SECRET_KEY: secret, DEPLOY_PASSWORD: secret, MY_PROXY: `http://u:${secret}@p:1`, [`NAME_${'X'.repeat(3)}`]: secret };
    const outputs = [
      await rig.run(['verify'], { env }),
      await rig.run(['verify', '--json'], { env }),
      await rig.run(['status', '--json'], { env }),
      await rig.run(['log', '--json'], { env }),
    ];
    for (const output of outputs) {
      expect(output.stdout).not.toContain(secret);
      expect(output.stderr).not.toContain(secret);
    }
    expect(outputs[1]!.json().checks[0].withheld_env).toEqual(expect.arrayContaining(['DEPLOY_PASSWORD', 'MY_PROXY', 'STRIPE_SECRET_KEY']));
    // The example offered is neither credential-shaped nor a proxy.
    expect(outputs[0]!.stdout).toContain('env: ["NAME_XXX"]');
    for (const body of rows(rig).map((row) => row.body)) expect(body).not.toContain(secret);
    for (const bytes of [...allBytes(rig.path('.vouch')), ...allBytes(rig.home)]) expect(bytes.includes(secret)).toBe(false);
  });
});
