import { control, type Sequence } from './terminal.js';

/**
 * ANSI colour, on only for a terminal and never under NO_COLOR or TERM=dumb.
 * Painted text carries tokens, not escape sequences: the write boundary
 * (render/terminal.ts) turns them into colour, and only them.
 */
export interface Paint {
  readonly enabled: boolean;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

export function colorEnabled(isTTY: boolean, env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY && env.TERM !== 'dumb';
}

const wrap = (enabled: boolean, open: Sequence, close: Sequence) => (text: string) => (enabled ? `${control(open)}${text}${control(close)}` : text);

export function paint(enabled: boolean): Paint {
  return {
    enabled,
    red: wrap(enabled, 'red', 'defaultColor'),
    green: wrap(enabled, 'green', 'defaultColor'),
    yellow: wrap(enabled, 'yellow', 'defaultColor'),
    cyan: wrap(enabled, 'cyan', 'defaultColor'),
    dim: wrap(enabled, 'dim', 'normalIntensity'),
    bold: wrap(enabled, 'bold', 'normalIntensity'),
  };
}
