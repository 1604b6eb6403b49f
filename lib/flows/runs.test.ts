import { describe, expect, it } from 'vitest';
import { RunRegistry } from './runs';

describe('RunRegistry', () => {
  it('a run replaced by a newer one can neither patch nor end it; throttled patches land once, latest wins', async () => {
    const runs = new RunRegistry();
    const changes: number[] = [];
    runs.subscribe(() => changes.push(Object.keys(runs.getSnapshot()).length));
    const old = runs.start({ sessionId: 's', kind: 'reply', parentId: null, abort: new AbortController() });
    const fresh = runs.start({ sessionId: 's', kind: 'compaction', parentId: null, abort: new AbortController(), status: 'Compacting…' });
    runs.patch(old, { text: 'late' });
    runs.end(old);
    expect(runs.get('s')).toMatchObject({ kind: 'compaction', text: '', status: 'Compacting…' });
    const patch = runs.throttled(fresh, 5);
    patch({ text: 'a' });
    patch({ text: 'ab', reasoning: 'r' });
    expect(runs.get('s')!.text).toBe('');
    await new Promise((r) => setTimeout(r, 20));
    expect(runs.get('s')).toMatchObject({ text: 'ab', reasoning: 'r' });
    const onDelta = runs.streamInto(fresh);
    onDelta('Sum');
    onDelta('mary');
    await new Promise((r) => setTimeout(r, 80));
    expect(runs.get('s')!.text).toBe('Summary');
    runs.end(fresh);
    expect(runs.get('s')).toBeUndefined();
    expect(changes.at(-1)).toBe(0);
  });
});
