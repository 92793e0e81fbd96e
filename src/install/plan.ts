import type { Refusal } from './intent.js';

/**
 * The result of building an edit in memory: the new text (null when the file
 * is already as intended, or when there is nothing to take back), and the
 * containers the edit created, so an uninstall can remove them again.
 */
export type Built =
  { readonly ok: true; readonly text: string | null; readonly created: readonly (readonly string[])[] } | { readonly ok: false; readonly refusal: Refusal };
