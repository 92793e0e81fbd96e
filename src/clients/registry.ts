import { claudeCode } from './claude-code.js';
import { codex } from './codex.js';
import { hermes } from './hermes.js';
import type { AgentClient, ClientHooks } from './descriptor.js';
import { cursor, geminiCli } from './others.js';

/**
 * Every agent client vouch knows, in the order their markers are tried.
 * Every list of clients is derived from this one: the hook clients (`vouch
 * hook`), the install targets, the gate's wiring, the box's read-only
 * paths, the agent-run markers. A new client is its descriptor file and
 * one line here.
 */
export const CLIENTS = [claudeCode, codex, hermes, cursor, geminiCli] as const satisfies readonly AgentClient[];

type Known = (typeof CLIENTS)[number];

/** An agent client vouch gates through its hooks: whose hook wrote a ledger entry. */
export type Client = Extract<Known, { readonly hooks: ClientHooks }>['id'];

/** A client with hooks, its hooks narrowed to be there. */
export type HookedClient = AgentClient & { readonly hooks: ClientHooks };

/** The clients vouch gates through their hooks, in registry order. */
export function hookedClients(clients: readonly AgentClient[] = CLIENTS): HookedClient[] {
  return clients.filter((client): client is HookedClient => client.hooks !== null);
}

/** The client of this id, with hooks; undefined for an id vouch does not gate. */
export function hookedClient(id: string, clients: readonly AgentClient[] = CLIENTS): HookedClient | undefined {
  return hookedClients(clients).find((client) => client.id === id);
}

/** Whether `id` names a client vouch gates through its hooks. */
export function isClient(id: string): id is Client {
  return hookedClient(id) !== undefined;
}

/** A client's name for people ("Claude Code"); the id itself for one vouch does not know. */
export function clientLabel(id: string, clients: readonly AgentClient[] = CLIENTS): string {
  return clients.find((client) => client.id === id)?.label ?? id;
}
