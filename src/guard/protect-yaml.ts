import { noteLoaded } from '../core/start.js';
import { parse } from 'yaml';

noteLoaded('yaml');

/**
 * vouch.yaml parsed leniently, for the guard's protect: list when the spec
 * cache cannot answer. Its own module, loaded with import(): the YAML parser
 * stays off a guard call while the spec is unchanged.
 */
export function parseLeniently(text: string): unknown {
  return parse(text);
}
