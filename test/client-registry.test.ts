import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentRun } from '../src/clients/agent-run.js';
import { claudeCodeProtocol } from '../src/clients/claude-code.js';
import { STOP_TIMEOUT_SECONDS, type AgentClient } from '../src/clients/descriptor.js';
import { CLIENTS, clientLabel, hookedClient, hookedClients } from '../src/clients/registry.js';
import { configWiring } from '../src/guard/wiring.js';
import { readOnlySet } from '../src/install/box/read-only.js';
import { installTargets } from '../src/install/targets/index.js';
import { Rig } from './helpers/rig.js';

/*
 * Issue 29: one registry of agent clients. Every list of clients vouch
 * keeps (the hook callers, the install targets, the gate's wiring, the
 * box's read-only paths, the agent-run markers, the labels) is derived from
 * clients/registry.ts. A new client is one file (its descriptor, here
 * written in the test) and one line (its place in the list, here
 * `[...CLIENTS, fake]`); nothing else names it.
 */

/** The whole of the "one file": a client with a JSON hooks file at .fake/hooks.json. */
const fake = {
  id: 'fake-agent',
  label: 'Fake Agent',
  markers: ['FAKE_AGENT_RUN'],
  hooks: {
    protocol: claudeCodeProtocol,
    install: {
      kind: 'hooks-file',
      summary: 'Fake Agent hooks',
      scopes: ['project', 'user'],
      file: (scope, root, env) => (scope === 'project' ? join(root!, '.fake', 'hooks.json') : join(env.HOME!, '.fake', 'hooks.json')),
      events: [{ event: 'Stop', matcher: null, timeout: STOP_TIMEOUT_SECONDS }],
    },
    wiring: (root, env) => [
      ...(root === null ? [] : [{ path: join(root, '.fake', 'hooks.json'), dir: false, scope: 'project' as const, what: "Fake Agent's project hooks" }]),
      { path: join(env.HOME!, '.fake', 'hooks.json'), dir: false, scope: 'user' as const, what: "Fake Agent's user hooks" },
    ],
    projectDir: '.fake',
    box: null,
  },
} as const satisfies AgentClient;

/** The "one line". */
const registry: readonly AgentClient[] = [...CLIENTS, fake];

describe('one registry of agent clients (issue 29)', () => {
  const root = '/work/ws';
  const env = { HOME: '/home/person', VOUCH_HOME: '/home/person/.vouch' };

  it('a fake client added to the list is a hook client, an install target, wiring, read-only in the box, an agent run and a label', () => {
    expect(hookedClients(registry).map((c) => c.id)).toContain('fake-agent');
    expect(hookedClient('fake-agent', registry)?.hooks.protocol).toBe(claudeCodeProtocol);
    expect(clientLabel('fake-agent', registry)).toBe('Fake Agent');

    const target = installTargets(registry)['fake-agent'];
    expect(target?.scopes).toEqual(['project', 'user']);
    const intents = target!.intents({
      scope: 'project',
      root,
      env,
      self: { node: '/n', entry: '/v' },
      mode: 'install',
      box: true,
      exec: false,
      protect: [],
      programs: [],
    });
    expect(intents.ok).toBe(true);
    const [hooks] = intents.ok ? intents.intents : [];
    expect(hooks?.path).toBe(join(root, '.fake', 'hooks.json'));
    expect(JSON.stringify(hooks?.changes)).toContain('/n /v hook fake-agent Stop');

    const wiring = configWiring(root, env, registry);
    expect(wiring).toContainEqual({ path: join(root, '.fake', 'hooks.json'), dir: false, scope: 'project', what: "Fake Agent's project hooks" });
    expect(wiring).toContainEqual({ path: '/home/person/.fake/hooks.json', dir: false, scope: 'user', what: "Fake Agent's user hooks" });
    expect(readOnlySet(root, env, [], null, registry).paths.map((p) => p.path)).toContain(join(root, '.fake'));

    expect(agentRun({ FAKE_AGENT_RUN: '1' }, registry)).toEqual({ agent: 'fake-agent', marker: 'FAKE_AGENT_RUN' });
  });

  it('without its line, the fake client is in none of those lists (the lists are derived, not the fake)', () => {
    expect(hookedClients().map((c) => c.id)).not.toContain('fake-agent');
    expect(installTargets()['fake-agent']).toBeUndefined();
    expect(configWiring(root, env).map((w) => w.path)).not.toContain(join(root, '.fake', 'hooks.json'));
    expect(readOnlySet(root, env, []).paths.map((p) => p.path)).not.toContain(join(root, '.fake'));
    expect(agentRun({ FAKE_AGENT_RUN: '1' })).toBeNull();
  });

  it('every registered client with hooks is a target and wiring; every marker shows its client', () => {
    const targets = installTargets();
    for (const client of hookedClients()) {
      expect(targets[client.id], client.id).toBeDefined();
      for (const place of client.hooks.wiring(root, env)) expect(configWiring(root, env)).toContainEqual(place);
    }
    expect(Object.keys(targets)).toEqual([...hookedClients().map((c) => c.id), 'git-hooks']);
    for (const client of CLIENTS) for (const marker of client.markers) expect(agentRun({ [marker]: '1' })?.agent).toBe(client.id);
  });

  it('`vouch hook` takes every hooked client of the registry and git, and names exactly those for an unknown one', async () => {
    const rig = new Rig();
    for (const client of hookedClients()) {
      const reply = await rig.run(['hook', client.id, 'PostToolUse'], {
        stdin: JSON.stringify({ session_id: 's', cwd: rig.root, hook_event_name: 'PostToolUse' }),
      });
      expect(reply.code, `${client.id}: ${reply.stderr}`).toBe(0);
    }
    const unknown = await rig.run(['hook', 'fake-agent', 'Stop'], { stdin: '{}' });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`one of: ${[...hookedClients().map((c) => c.id), 'git'].join(', ')}`);
  });
});
