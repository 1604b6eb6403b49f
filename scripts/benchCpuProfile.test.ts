import { describe, expect, it } from 'vitest';
import { scriptMs, type CpuProfile } from './benchCpuProfile';

const node = (id: number, functionName: string) => ({ id, callFrame: { functionName } });

describe('scriptMs', () => {
  it('counts the time after each script sample, and none after idle, (program) or the garbage collector', () => {
    const profile: CpuProfile = {
      nodes: [node(1, '(root)'), node(2, '(idle)'), node(3, 'render'), node(4, '(program)'), node(5, '(garbage collector)'), node(6, '')],
      // render 2 ms, idle 5 ms, (program) 1 ms, anonymous script 3 ms, GC 4 ms, render again (last: no time after it)
      samples: [3, 2, 4, 6, 5, 3],
      timeDeltas: [100, 2000, 5000, 1000, 3000, 4000],
    };
    expect(scriptMs(profile)).toBe(5);
  });

  it('is 0 for an empty profile', () => {
    expect(scriptMs({ nodes: [], samples: [], timeDeltas: [] })).toBe(0);
  });
});
