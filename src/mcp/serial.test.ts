import { describe, expect, it } from 'vitest';
import { Serial } from './serial.js';

describe('Serial', () => {
  it('runs jobs one at a time, in the order queued, and counts what is pending', async () => {
    const serial = new Serial();
    const events: string[] = [];
    let release!: () => void;
    const first = serial.run(async () => {
      events.push('first start');
      await new Promise<void>((resolve) => (release = resolve));
      events.push('first end');
      return 1;
    });
    const second = serial.run(async () => {
      events.push('second start');
      return 2;
    });
    expect(serial.pending).toBe(2);
    await Promise.resolve();
    expect(events).toEqual(['first start']);
    release();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(events).toEqual(['first start', 'first end', 'second start']);
    await Promise.resolve();
    expect(serial.pending).toBe(0);
  });

  it('a failing job rejects its own caller and does not stop the queue', async () => {
    const serial = new Serial();
    const failing = serial.run(() => Promise.reject(new Error('boom')));
    const next = serial.run(async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('ran');
  });
});
