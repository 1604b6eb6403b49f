import type { EntryId } from '@/lib/session/types';
import { probesFor, type ProbeKind, type SpanMessage } from './probes';
import { answerOf, answers, emptyCoverage, health } from './score';

/** A probe the summary does not answer, as the card lists it. */
export interface MissedProbe {
  kind: ProbeKind;
  label: string;
  /**
   * The message to pin so the item reaches the model verbatim: the message
   * the probe came from, or for a tool result the assistant message that
   * called it (a result is only ever sent with its call).
   */
  entryId?: EntryId;
}

/** What a summary carries of the span it replaced, as probes measure it. */
export interface ProbeReport {
  /** Mean coverage over the kinds the span had (score.ts health); null when the span gave no probes. */
  health: number | null;
  answered: number;
  total: number;
  missed: MissedProbe[];
}

/**
 * Scores a summary against the span it replaced: the whole summary as
 * stored, since that is what the model will see (the user-messages section
 * and the file lists count: a request carried there is carried). Heavy on a
 * long span (hundreds of milliseconds for 200k tokens): run it in a worker.
 */
export function probeReport(span: readonly SpanMessage[], summary: string): ProbeReport {
  const probes = probesFor(span);
  const answer = answerOf(summary);
  const cov = emptyCoverage();
  const caller = new Map<string, EntryId>();
  const resultCall = new Map<EntryId, string>();
  for (const { entryId, message } of span) {
    if (message.role === 'assistant') for (const p of message.content) if (p.type === 'toolCall') caller.set(p.id, entryId);
    if (message.role === 'toolResult') resultCall.set(entryId, message.toolCallId);
  }
  const missed: MissedProbe[] = [];
  for (const p of probes) {
    const c = cov[p.kind];
    c.total++;
    if (answers(answer, p)) {
      c.hit++;
      continue;
    }
    const call = p.entryId !== undefined ? resultCall.get(p.entryId) : undefined;
    const entryId = call !== undefined ? caller.get(call) : p.entryId;
    missed.push({ kind: p.kind, label: p.label, ...(entryId !== undefined ? { entryId } : {}) });
  }
  return { health: health(cov), answered: probes.length - missed.length, total: probes.length, missed };
}

/** The probe report as a worker hosts it (workers/formats.worker.ts). */
export function createProbeService() {
  return {
    probeReport(span: SpanMessage[], summary: string): ProbeReport {
      return probeReport(span, summary);
    },
  };
}

export type ProbeService = ReturnType<typeof createProbeService>;
