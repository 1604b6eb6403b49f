/**
 * What the renderer's memory consists of, from Chromium's own memory-infra dumps (the data behind
 * chrome://tracing's memory view): V8 heaps of the page and of the workers (by space), malloc,
 * PartitionAlloc partitions (strings and buffers, array buffers), Blink's GC heap, shared memory.
 * A dump is requested at the start (the baseline) and then periodically until stopped; the dump
 * whose parts add up to the most stands for the peak. Tracing costs CPU: figures of time taken
 * while dumping are not representative.
 */

import type { CDPSession } from '@playwright/test';

/** The parts reported, in MB, as "allocator path" → label. Sub-paths are summed over isolates. */
const PARTS: [RegExp, string][] = [
  [/^v8\/main\/heap$/, 'V8 heap, page'],
  [/^v8\/workers\/heap\/new_space$/, 'V8 heap, workers: young generation'],
  [/^v8\/workers\/heap\/old_space$/, 'V8 heap, workers: old generation'],
  [/^v8\/workers\/heap\/(?!new_space$|old_space$)[a-z_]+$/, 'V8 heap, workers: other spaces'],
  [/^malloc$/, 'malloc'],
  [/^partition_alloc\/partitions\/buffer$/, 'PartitionAlloc: strings and buffers'],
  [/^partition_alloc\/partitions\/array_buffer$/, 'PartitionAlloc: array buffers'],
  [/^blink_gc$/, 'Blink GC heap (DOM, streams, IndexedDB requests)'],
  [/^shared_memory$/, 'shared memory (IPC)'],
];

export type Breakdown = Record<string, number>;

interface TraceEvent {
  ph: string;
  pid: number;
  name?: string;
  args?: { name?: string; dumps?: { allocators?: Record<string, { attrs?: { size?: { value: string } } }> } };
}

function breakdown(allocators: Record<string, { attrs?: { size?: { value: string } } }>): Breakdown {
  const out: Breakdown = {};
  for (const [path, dump] of Object.entries(allocators)) {
    const size = dump.attrs?.size ? parseInt(dump.attrs.size.value, 16) : 0;
    for (const [re, label] of PARTS) if (re.test(path)) out[label] = (out[label] ?? 0) + size;
  }
  return out;
}

const total = (b: Breakdown) => Object.values(b).reduce((a, x) => a + x, 0);

export async function startMemoryDumps(cdp: CDPSession, intervalMs = 900) {
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: ['disabled-by-default-memory-infra'], memoryDumpConfig: { triggers: [] } },
    transferMode: 'ReturnAsStream',
  } as never);
  const dump = () => cdp.send('Tracing.requestMemoryDump', { deterministic: false, levelOfDetail: 'detailed' } as never).catch(() => undefined);
  await dump();
  let running = true;
  const loop = (async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, intervalMs));
      if (running) await dump();
    }
  })();
  return {
    /** Ends tracing; the renderer's first dump (before) and its largest one (peak), in bytes per part. */
    async stop(): Promise<{ before: Breakdown; peak: Breakdown; dumps: number }> {
      running = false;
      await loop;
      const complete = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (e: { stream?: string }) => resolve(e.stream!)));
      await cdp.send('Tracing.end');
      const handle = await complete;
      const parts: string[] = [];
      for (;;) {
        const r = (await cdp.send('IO.read', { handle, size: 1 << 20 } as never)) as { data: string; eof: boolean; base64Encoded?: boolean };
        parts.push(r.base64Encoded ? Buffer.from(r.data, 'base64').toString() : r.data);
        if (r.eof) break;
      }
      await cdp.send('IO.close', { handle } as never).catch(() => undefined);
      const parsed = JSON.parse(parts.join('')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
      const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
      const renderers = new Set(events.filter((e) => e.ph === 'M' && e.name === 'process_name' && /renderer/i.test(e.args?.name ?? '')).map((e) => e.pid));
      // The page's renderer is the one whose dumps hold a main-thread V8 heap and malloc.
      const dumps = events
        .filter((e) => e.ph === 'v' && renderers.has(e.pid) && e.args?.dumps?.allocators?.malloc && e.args.dumps.allocators['v8/main/heap'])
        .map((e) => breakdown(e.args!.dumps!.allocators!));
      if (dumps.length === 0) throw new Error('no memory dump of the renderer was recorded');
      const peak = dumps.reduce((a, b) => (total(b) > total(a) ? b : a));
      return { before: dumps[0]!, peak, dumps: dumps.length };
    },
  };
}

export const PART_LABELS = PARTS.map(([, label]) => label);
