import { hostname } from 'node:os';
import type { Client } from '../clients/registry.js';
import type { Writer, WriterActor } from './model.js';

/** This process, as the writer of a transition. */
export function currentWriter(actor: WriterActor, client: Client | null = null): Writer {
  return { pid: process.pid, ppid: process.ppid, actor, client, host: hostname() };
}
