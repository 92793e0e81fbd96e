import { describe, expect, it } from 'vitest';
import { CLAIM } from './worker-budget.js';

describe('the claim a shell command makes', () => {
  it.each([
    ['vouch card claim c-7k2m9xqa', 'c-7k2m9xqa'],
    ['npx vouch card claim c-7k2m9xqa --as w1', 'c-7k2m9xqa'],
    ['node /opt/vouch/dist/cli.js card claim c-7k2m9xqa', 'c-7k2m9xqa'],
    ['cd app && vouch -C . card claim c-7k2m9xqa', 'c-7k2m9xqa'],
  ])('%s binds to its card', (command, card) => {
    expect(CLAIM.exec(command)?.[1]).toBe(card);
  });

  it.each(['vouch card show c-7k2m9xqa', 'echo card claim c-7k2m9xqa', 'vouch status; card claim c-7k2m9xqa', 'vouch card claim c-7K2M9XQA'])(
    '%s binds to none',
    (command) => {
      expect(CLAIM.exec(command)).toBeNull();
    },
  );
});
