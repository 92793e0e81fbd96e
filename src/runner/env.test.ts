import { describe, expect, it } from 'vitest';
import { checkEnvironment, suggestable, withheldEnvironment } from './env.js';

describe('checkEnvironment', () => {
  it.each([
    ['a certificate path', 'NODE_EXTRA_CA_CERTS', true],
    ['the OpenSSL bundle', 'SSL_CERT_FILE', true],
    ['a locale category', 'LC_TIME', true],
    ['a token', 'GITHUB_TOKEN', false],
    ['a proxy', 'HTTPS_PROXY', false],
    ['a proxy, lower case', 'https_proxy', false],
    ['NODE_OPTIONS (it can load code)', 'NODE_OPTIONS', false],
    ['TERM', 'TERM', false],
  ])('%s (%s) crosses by default: %s', (_what, name, crosses) => {
    expect(name in checkEnvironment({ [name]: 'v' }, [])).toBe(crosses);
  });

  it("sets PYTHONNOUSERSITE=1 and PYTHONSAFEPATH=1 whatever the caller has; a check that lists one gets the caller's value, or none", () => {
    const env = checkEnvironment({ PYTHONNOUSERSITE: '', PYTHONSAFEPATH: '' }, []);
    expect([env.PYTHONNOUSERSITE, env.PYTHONSAFEPATH]).toEqual(['1', '1']);
    const listed = checkEnvironment({ PYTHONSAFEPATH: '' }, ['PYTHONSAFEPATH', 'PYTHONNOUSERSITE']);
    expect(listed.PYTHONSAFEPATH).toBe('');
    expect('PYTHONNOUSERSITE' in listed).toBe(false);
  });

  it('passes a name the check lists', () => {
    expect(checkEnvironment({ HTTPS_PROXY: 'http://p:3128' }, ['HTTPS_PROXY']).HTTPS_PROXY).toBe('http://p:3128');
  });
});

describe('withheldEnvironment', () => {
  it('names, sorted, what did not cross, leaving out defaults, listed names and the caller-only noise', () => {
    const caller = {
      PATH: '/bin',
      NODE_EXTRA_CA_CERTS: '/ca.pem',
      LISTED: '1',
      ZED: '1',
      ALPHA: '1',
      PWD: '/w',
      SHLVL: '2',
      PS1: '$ ',
      TERM_PROGRAM: 'x',
      VOUCH_HOME: '/h',
      CLAUDECODE: '1',
      UNSET: undefined,
    };
    expect(withheldEnvironment(caller, ['LISTED'])).toEqual(['ALPHA', 'ZED']);
  });
});

describe('suggestable', () => {
  it.each([
    ['NPM_CONFIG_REGISTRY', true],
    ['JAVA_HOME', true],
    ['MONKEY_BUSINESS', true],
    ['GITHUB_TOKEN', false],
    ['AWS_SECRET_ACCESS_KEY', false],
    ['DEPLOY_PASSWORD', false],
    ['API_KEY', false],
    ['NPM_AUTH', false],
    ['HTTPS_PROXY', false],
    ['no_proxy', false],
  ])('%s: %s', (name, expected) => {
    expect(suggestable(name)).toBe(expected);
  });
});
