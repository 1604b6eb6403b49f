/**
 * Hybrid logical clocks (Kulkarni et al.): a wall-clock time in ms, a counter
 * for events within the same ms (or while the wall clock lags a clock already
 * seen), and the node that made it as the tie-break. Formatted fixed-width so
 * that string order is clock order, which lets the server compare two clocks
 * in SQL without knowing what they are.
 */
export interface Hlc {
  wall: number;
  counter: number;
  node: string;
}

/** A remote clock further ahead than this is not followed (a device with a wrong clock must not drag every clock into the future). */
export const MAX_DRIFT_MS = 24 * 60 * 60 * 1000;

export function formatHlc(h: Hlc): string {
  return `${String(h.wall).padStart(15, '0')}:${h.counter.toString(16).padStart(4, '0')}:${h.node}`;
}

export function parseHlc(text: string): Hlc {
  const m = /^(\d{15}):([0-9a-f]{4}):([A-Za-z0-9_-]{1,32})$/.exec(text);
  if (!m) throw new Error(`Not a hybrid logical clock: ${text.slice(0, 60)}`);
  return { wall: Number(m[1]), counter: parseInt(m[2]!, 16), node: m[3]! };
}

export const compareHlc = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The clock of a local event: later than every clock this node has seen. */
export function tick(last: Hlc | null, now: number, node: string): Hlc {
  if (!last || now > last.wall) return { wall: now, counter: 0, node };
  return bump(last.wall, last.counter, node);
}

/** The clock after seeing a remote one: later than both. */
export function receive(last: Hlc | null, remote: Hlc, now: number, node: string): Hlc {
  const local = last ?? { wall: 0, counter: 0, node };
  if (remote.wall > now + MAX_DRIFT_MS) return tick(local, now, node);
  const wall = Math.max(local.wall, remote.wall, now);
  if (wall === local.wall && wall === remote.wall) return bump(wall, Math.max(local.counter, remote.counter), node);
  if (wall === local.wall) return bump(wall, local.counter, node);
  if (wall === remote.wall) return bump(wall, remote.counter, node);
  return { wall, counter: 0, node };
}

function bump(wall: number, counter: number, node: string): Hlc {
  // 16 bits of counter; past that, borrow the next millisecond rather than overflow the fixed width.
  return counter >= 0xffff ? { wall: wall + 1, counter: 0, node } : { wall, counter: counter + 1, node };
}
