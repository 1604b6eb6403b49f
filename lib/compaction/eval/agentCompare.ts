import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type CompactionSettings, type SessionEntry } from '@/lib/session/types';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { compact } from '../compact';
import { planSummary } from '../plan';
import { prepareRegeneration, summaryOutputBudget } from '../prepare';
import { probesFor, type Probe, type SpanMessage } from '../probes/probes';
import { coverage, type CoverageByKind } from '../probes/score';
import type { CompactionPreparation } from '../types';
import type { EvalModel } from './run';
import { summaryBody } from './summaryParts';

/**
 * Our summaries beside the ones real agents wrote, on the same spans. A
 * transcript that holds an agent's own compaction (pi's `compaction` entries,
 * Claude Code's `compact_boundary` with its summary, Codex's `compacted`)
 * says exactly what was replaced; the app's regeneration rebuilds that span
 * (prepareRegeneration, what "Regenerate" on an imported card does), our
 * summarizers write their summary of it, and both are scored by the same
 * probes drawn from the span.
 */

export interface AgentCompaction {
  fixture: string;
  /** Which agent wrote it (the importer's `source`). */
  agent: string;
  /** 1-based position among the fixture's compactions, for the report. */
  ordinal: number;
  entry: CompactionEntry;
  /** The path up to the compaction entry (exclusive). */
  pathBefore: SessionEntry[];
}

/** Every agent-written compaction on a path, with the path before it. */
export function agentCompactionsOn(fixture: string, path: readonly SessionEntry[]): AgentCompaction[] {
  const out: AgentCompaction[] = [];
  path.forEach((e, i) => {
    if (e.type !== 'compaction' || e.details.summarizer.kind !== 'imported') return;
    out.push({ fixture, agent: e.details.summarizer.source, ordinal: out.length + 1, entry: e, pathBefore: path.slice(0, i) });
  });
  return out;
}

export interface Scored {
  chars: number;
  tokens: number;
  whole: CoverageByKind;
  /** Without what the app appends (the user-messages section, the file lists); equal to whole for an agent's summary. */
  body: CoverageByKind;
  bodyChars: number;
}

export interface Comparison {
  fixture: string;
  agent: string;
  ordinal: number;
  /** Why nothing was compared (the replaced history is not in the file), else null. */
  skipped: string | null;
  spanTokens: number;
  probes: Probe[];
  theirs: Scored | null;
  ours: Scored | null;
  model: (Scored & { name: string; fallback: string | null }) | null;
  /** Trivial outputs scored by the same probes: near 0, or the probes measure nothing. */
  headingsOnly: CoverageByKind | null;
}

export interface CompareDeps {
  countText: (text: string) => number;
  tokensOf: (entry: SessionEntry) => number;
  settings?: CompactionSettings;
}

/** Section headings and nothing else: what a model that ignores the transcript would write. */
export const HEADINGS_ONLY = ['## Goal', '## Constraints & Preferences', '## Progress', '## Key Decisions', '## Errors and fixes', '## Files', '## Next Steps', '## Critical Context'].join('\n\n');

function score(summary: string, probes: readonly Probe[], countText: (t: string) => number): Scored {
  const body = summaryBody(summary);
  return { chars: summary.length, tokens: countText(summary), whole: coverage(summary, probes), body: coverage(body, probes), bodyChars: body.length };
}

function spanMessages(prep: CompactionPreparation): SpanMessage[] {
  return [...prep.messagesToSummarize, ...prep.turnPrefixMessages].flatMap((i) => (i.kind === 'message' ? [{ entryId: i.entryId, message: i.message }] : []));
}

export async function compareWithAgent(c: AgentCompaction, deps: CompareDeps, model?: EvalModel): Promise<Comparison> {
  const settings = deps.settings ?? DEFAULT_COMPACTION_SETTINGS;
  const base = { fixture: c.fixture, agent: c.agent, ordinal: c.ordinal };
  const tokens = pathTokensFromCounts(c.pathBefore.map(deps.tokensOf));
  const prep = c.pathBefore.length ? prepareRegeneration(c.pathBefore, tokens, settings, c.entry) : null;
  const span = prep ? spanMessages(prep) : [];
  if (!prep || span.length === 0)
    return { ...base, skipped: 'the history this compaction replaced is not in the file', spanTokens: 0, probes: [], theirs: null, ours: null, model: null, headingsOnly: null };
  const probes = probesFor(span);
  const spanTokens = prep.tokensSummarized + prep.tokensTurnPrefix + prep.previousSummaryTokens;
  const ours = (await compact(prep, { kind: 'extractive' }, { countTokens: deps.countText }))!;
  let modelScore: Comparison['model'] = null;
  if (model) {
    const plan = planSummary(prep, { window: model.window, maxOutputTokens: summaryOutputBudget(settings), countText: deps.countText });
    const r = await compact(prep, { kind: 'model', summarizer: model.summarizer, plan }, { countTokens: deps.countText });
    const name = model.summarizer.info.kind === 'model' ? model.summarizer.info.model : 'model';
    if (r) modelScore = { ...score(r.summary, probes, deps.countText), name, fallback: r.details.fallback ? `${r.details.fallback.reason} ×${r.details.fallback.attempts}` : null };
  }
  return {
    ...base,
    skipped: null,
    spanTokens,
    probes,
    theirs: score(c.entry.summary, probes, deps.countText),
    ours: score(ours.summary, probes, deps.countText),
    model: modelScore,
    headingsOnly: coverage(HEADINGS_ONLY, probes),
  };
}
