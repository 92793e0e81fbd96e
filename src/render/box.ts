import { gapWords, type BoxState } from '../gate/box.js';
import type { Paint } from './color.js';
import { clientLabel } from '../clients/registry.js';

/** One line on whether the agent works in the box, and what is missing when it does not. */
export function renderBox(box: BoxState, p: Paint): string {
  const client = clientLabel(box.client);
  if (box.on) return `${p.green('box:')} on (${client}'s sandbox, what vouches read-only)`;
  const shown = box.gaps.slice(0, 3).map(gapWords).join('; ');
  return `${p.yellow('box: off')} (${client}): ${shown}${box.gaps.length > 3 ? ` and ${box.gaps.length - 3} more` : ''}; \`vouch install ${box.client}\` turns it on`;
}
