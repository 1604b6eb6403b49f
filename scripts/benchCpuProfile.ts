/**
 * JavaScript time in a V8 CPU profile (DevTools' Profiler domain): the sampled time spent in script,
 * leaving out idle time, "(program)" (the renderer's own work: style, layout, paint, IPC) and the garbage
 * collector. The main thread's task duration mixes all of those with the machine's noise; the script
 * part is what the app's code does, so comparing it between profiles shows work that grows with a
 * session's size where the task duration only hints at it.
 */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  /** Microseconds before each sample (the first from `startTime`). */
  timeDeltas: number[];
}

const NOT_SCRIPT = new Set(['(idle)', '(program)', '(garbage collector)']);

/** Milliseconds of script in the profile: each sample counts for the time until the next one. */
export function scriptMs(profile: CpuProfile): number {
  const name = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  let us = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    if (NOT_SCRIPT.has(name.get(profile.samples[i]!) ?? '')) continue;
    us += profile.timeDeltas[i + 1] ?? 0;
  }
  return us / 1000;
}
