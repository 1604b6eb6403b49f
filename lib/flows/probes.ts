import type { SpanMessage } from '@/lib/compaction/probes/probes';
import type { ProbeReport } from '@/lib/compaction/probes/report';
import type { EffectiveSummary, SummaryEntry } from '@/lib/session/revisions';
import type { SessionEntry } from '@/lib/session/types';
import type { SessionHandle } from './session';

/** Reports kept per page; a card scrolled back into view or re-rendered asks again for free. */
const CACHE_SIZE = 64;

/**
 * Probe reports by summary and version: a summary's span never changes
 * (a compaction's own cut, a branch summary's branch), so an entry and the
 * version of its text name the report. A failed computation is forgotten,
 * so the next render tries again.
 */
export class ProbeCache {
  private readonly reports = new Map<string, Promise<ProbeReport | null>>();

  get(key: string, make: () => Promise<ProbeReport | null>): Promise<ProbeReport | null> {
    const hit = this.reports.get(key);
    if (hit) {
      // Most recently used last, for the eviction below.
      this.reports.delete(key);
      this.reports.set(key, hit);
      return hit;
    }
    const p = make().catch(() => {
      this.reports.delete(key);
      return null;
    });
    this.reports.set(key, p);
    while (this.reports.size > CACHE_SIZE) this.reports.delete(this.reports.keys().next().value!);
    return p;
  }
}

/** The cache key of a summary as it stands: the entry and the version of its text (an edit or regeneration is a new report). */
export function summaryProbeKey(entry: Pick<SummaryEntry, 'id'>, effective: Pick<EffectiveSummary, 'versions'>): string {
  return `${entry.id}@${effective.versions.at(-1)?.entryId ?? entry.id}`;
}

/** The messages of a span as the probes read them; summaries and bookkeeping entries in it are not what was said. */
export function spanMessages(entries: readonly SessionEntry[]): SpanMessage[] {
  return entries.flatMap((e) => (e.type === 'message' ? [{ entryId: e.id, message: e.message }] : []));
}

/**
 * What a summary carries of the span it replaced, and what it lost: computed
 * in a worker (the ports' probes), cached by `key`. Null where no worker
 * scores summaries, or when it failed.
 */
export function summaryProbes(s: Pick<SessionHandle, 'ports'> & { probeCache: ProbeCache }, key: string, span: readonly SessionEntry[], summary: string): Promise<ProbeReport | null> {
  const probes = s.ports.probes;
  if (!probes) return Promise.resolve(null);
  return s.probeCache.get(key, () => probes.report(spanMessages(span), summary));
}
