import type { Client } from '../clients/registry.js';
import type { HookProtocol } from '../clients/hook-protocol.js';

export { lines, type HookReply } from '../clients/hook-protocol.js';

/** One hooked client's protocol (its descriptor's), with the client it speaks for. */
export interface ClientProtocol extends HookProtocol {
  readonly client: Client;
}
