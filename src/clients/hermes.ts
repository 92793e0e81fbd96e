import { homedir } from 'node:os';
import { join } from 'node:path';
import { claudeCodeProtocol } from './claude-code.js';
import type { AgentClient } from './descriptor.js';
import type { HookProtocol } from './hook-protocol.js';
import { field, type ToolUse } from './tool-use.js';

/** $HERMES_HOME, else ~/.hermes: Hermes's own default (hermes_constants.get_hermes_home, 0.19.0) on Linux and macOS. */
export function hermesHome(env: NodeJS.ProcessEnv): string {
  return env.HERMES_HOME || join(env.HOME || homedir(), '.hermes');
}

/** Where vouch's plugin lives: a user plugin, `$HERMES_HOME/plugins/vouch/`. */
export function hermesPluginDir(env: NodeJS.ProcessEnv): string {
  return join(hermesHome(env), 'plugins', 'vouch');
}

/**
 * Hermes's tools as the guard sees them (0.19.0): `write_file` and `patch`
 * (mode `replace` names its path; mode `patch` carries a V4A patch, the
 * apply_patch format Codex uses) write files, `terminal` runs a shell
 * command. The plugin passes vouch's Claude-shaped replies back as Hermes's
 * own directives (`{"action": "continue"|"block", "message": ...}`).
 */
export const hermesProtocol: HookProtocol = {
  ...claudeCodeProtocol,
  answersAt: 'turn_end',
  toolUse: (toolName, toolInput): ToolUse | null => {
    if (toolName === null) return null;
    switch (toolName) {
      case 'write_file': {
        const path = field(toolInput, 'path');
        return { kind: 'write', tool: toolName, paths: typeof path === 'string' ? [path] : [] };
      }
      case 'patch': {
        if (field(toolInput, 'mode') === 'patch') {
          const patch = field(toolInput, 'patch');
          return { kind: 'patch', tool: toolName, patch: typeof patch === 'string' ? patch : null };
        }
        const path = field(toolInput, 'path');
        return { kind: 'write', tool: toolName, paths: typeof path === 'string' ? [path] : [] };
      }
      case 'terminal': {
        const command = field(toolInput, 'command');
        return typeof command === 'string' ? { kind: 'shell', tool: toolName, command } : { kind: 'other', tool: toolName };
      }
      default:
        return { kind: 'other', tool: toolName };
    }
  },
};

/**
 * Hermes Agent (hermes-agent 0.19.0 from PyPI): HERMES_SESSION_ID in what
 * its terminal tool runs; gated through a native plugin in
 * `$HERMES_HOME/plugins/vouch/`, enabled in `$HERMES_HOME/config.yaml`
 * (`plugins.enabled`, as `hermes plugins enable` does). Both are wiring, and
 * so is a project's `.hermes/` (project plugins, when HERMES_ENABLE_PROJECT_PLUGINS is set).
 */
export const hermes = {
  id: 'hermes',
  label: 'Hermes Agent',
  markers: ['HERMES_SESSION_ID'],
  // Set in Hermes's own process once its agent starts (agent_init, 0.19.0), so the plugin's `/vouch card` passes it on.
  sessionVariable: 'HERMES_SESSION_ID',
  hooks: {
    protocol: hermesProtocol,
    install: {
      kind: 'hermes-plugin',
      summary:
        "a native Hermes plugin: the gate at pre_verify, the write guard at pre_tool_call, the trail at post_tool_call, /vouch and vouch's tools (in $HERMES_HOME/plugins/vouch/, enabled in config.yaml)",
      home: hermesHome,
    },
    wiring: (root, env) => [
      ...(root === null ? [] : [{ path: join(root, '.hermes'), dir: true, scope: 'project' as const, what: "Hermes's project plugins (.hermes/)" }]),
      // The folder is guarded whole; its two files are also compared at every stop (a folder is not).
      { path: hermesPluginDir(env), dir: true, scope: 'user' as const, what: "vouch's Hermes plugin (its hooks)" },
      { path: join(hermesPluginDir(env), '__init__.py'), dir: false, scope: 'user' as const, what: "vouch's Hermes plugin (its hooks)" },
      { path: join(hermesPluginDir(env), 'plugin.yaml'), dir: false, scope: 'user' as const, what: "vouch's Hermes plugin (its manifest)" },
      { path: join(hermesHome(env), 'config.yaml'), dir: false, scope: 'user' as const, what: "Hermes's config (the plugin enabled, its MCP servers)" },
    ],
    projectDir: '.hermes',
    box: null,
  },
} as const satisfies AgentClient;
