import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings, type SessionEntry } from '@/lib/session/types';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { compact } from '../compact';
import { planSummary } from '../plan';
import { compactionVerdict } from '../policy';
import { prepareCompaction, summaryOutputBudget } from '../prepare';
import type { SummaryEngine } from '../produce';
import { serializeItems } from '../serialize';
import type { TextSummarizer } from '../summarizer';
import type { CompactionPreparation, SummaryItem } from '../types';
import { PROBE_KINDS, probesFor, type Probe, type ProbeKind, type SpanMessage } from '../probes/probes';
import { coverage, emptyCoverage, type CoverageByKind } from '../probes/score';
import { summaryBody } from './summaryParts';

/**
 * One compaction of a real session, as the app would make it, measured
 * against probes drawn from the transcript (lib/compaction/probes): the
 * whole summary, and its body without what the app appends. Pure: the caller
 * brings the sessions, the token counter and, optionally, a model.
 */

export interface EvalSubject {
  /** Fixture name, as the report prints it. */
  name: string;
  /** The path to compact, oldest first (messages; the fixture's own compactions left out). */
  path: SessionEntry[];
}

export interface EvalDeps {
  countText: (text: string) => number;
  tokensOf: (entry: SessionEntry) => number;
  /** The chat model's window the context after is reported against. */
  window: number;
  settings?: CompactionSettings;
}

export interface EvalModel {
  summarizer: TextSummarizer;
  /** The model's context window: plans the summary, and bounds the question calls. */
  window: number;
}

export interface QaScore {
  /** Probes the model answered from the compacted context (summary + kept messages). */
  compacted: number;
  /** …and from the full context; null when that did not fit or failed. */
  full: number | null;
  ratio: number | null;
  note?: string;
}

export interface EvalRow {
  fixture: string;
  /** 'extractive', or the model's name. */
  mode: string;
  /** Why nothing was measured ('nothing to compact'), else null. */
  skipped: string | null;
  spanTokens: number;
  summaryTokens: number;
  /** 1 − summary / span. */
  compression: number;
  contextBefore: number;
  contextAfter: number;
  window: number;
  /** The app appends only a compaction that makes the context smaller (policy.compactionVerdict). */
  appended: boolean;
  /** The summary was not smaller than the span it replaces. */
  grew: boolean;
  fallback: string | null;
  coverage: CoverageByKind;
  /** Coverage of what the summarizer wrote, without the app's user-messages section and file lists. */
  bodyCoverage: CoverageByKind;
  qa?: QaScore;
}

/** Keep-recent for the measurement: the default, or a quarter of a small session, so every fixture has something to summarise. */
function keepRecentFor(total: number, settings: CompactionSettings): number {
  return Math.min(settings.keepRecentTokens, Math.floor(total / 4));
}

function spanOf(prep: CompactionPreparation): SpanMessage[] {
  return [...prep.messagesToSummarize, ...prep.turnPrefixMessages].flatMap((i) => (i.kind === 'message' ? [{ entryId: i.entryId, message: i.message }] : []));
}

function emptyRow(fixture: string, mode: string, total: number, window: number): EvalRow {
  return {
    fixture,
    mode,
    skipped: 'nothing to compact',
    spanTokens: 0,
    summaryTokens: 0,
    compression: 0,
    contextBefore: total,
    contextAfter: total,
    window,
    appended: false,
    grew: false,
    fallback: null,
    coverage: emptyCoverage(),
    bodyCoverage: emptyCoverage(),
  };
}

/** Measures one session: the extractive compaction, and the model's when one is given. */
export async function evaluateSubject(subject: EvalSubject, deps: EvalDeps, model?: EvalModel): Promise<EvalRow[]> {
  const settings = deps.settings ?? DEFAULT_COMPACTION_SETTINGS;
  const counts = subject.path.map(deps.tokensOf);
  const total = counts.reduce((a, b) => a + b, 0);
  const tokens = pathTokensFromCounts(counts);
  const keepRecentTokens = keepRecentFor(total, settings);
  const prep = prepareCompaction(subject.path, tokens, settings, { keepRecentTokens, force: true, window: deps.window });
  const modes: { mode: string; engine: (p: CompactionPreparation) => SummaryEngine }[] = [{ mode: 'extractive', engine: () => ({ kind: 'extractive' }) }];
  if (model) {
    const name = model.summarizer.info.kind === 'model' ? model.summarizer.info.model : 'model';
    modes.push({
      mode: name,
      engine: (p) => ({ kind: 'model', summarizer: model.summarizer, plan: planSummary(p, { window: model.window, maxOutputTokens: summaryOutputBudget(settings), countText: deps.countText }) }),
    });
  }
  if (!prep) return modes.map(({ mode }) => emptyRow(subject.name, mode, total, deps.window));
  const span = spanOf(prep);
  const probes = probesFor(span);
  const spanTokens = prep.tokensSummarized + prep.tokensTurnPrefix + prep.previousSummaryTokens;
  const rows: EvalRow[] = [];
  for (const { mode, engine } of modes) {
    let result;
    try {
      result = (await compact(prep, engine(prep), { countTokens: deps.countText }))!;
    } catch (e) {
      rows.push({ ...emptyRow(subject.name, mode, total, deps.window), skipped: `failed: ${e instanceof Error ? e.message : String(e)}` });
      continue;
    }
    const summaryTokens = deps.countText(result.summary);
    const verdict = compactionVerdict({ tokensBefore: prep.tokensBefore, tokensKept: prep.tokensKept, summaryTokens, window: deps.window });
    const row: EvalRow = {
      fixture: subject.name,
      mode,
      skipped: null,
      spanTokens,
      summaryTokens,
      compression: spanTokens > 0 ? 1 - summaryTokens / spanTokens : 0,
      contextBefore: prep.tokensBefore,
      contextAfter: verdict.append ? verdict.tokensAfter : prep.tokensBefore,
      window: deps.window,
      appended: verdict.append,
      grew: summaryTokens >= spanTokens,
      fallback: result.details.fallback ? `${result.details.fallback.reason} ×${result.details.fallback.attempts}` : null,
      coverage: coverage(result.summary, probes),
      bodyCoverage: coverage(summaryBody(result.summary), probes),
    };
    if (model && mode !== 'extractive') row.qa = await askProbes(model, probes, result.summary, subject.path, prep, deps);
    rows.push(row);
  }
  return rows;
}

// ---------------------------------------------------------------- asking the model

/** One question per kind; each probe of the kind is graded against that answer. */
const QUESTIONS: Record<ProbeKind, string> = {
  request: 'Quote the first line of every message the user wrote, in order, one per line, word for word.',
  lastTask: "What is the user's latest request, and what exactly does it ask for? Name the files, functions and commands involved.",
  fileModified: 'List every file path that was created, written, edited or deleted in this conversation, one per line, exactly as written.',
  fileRead: 'List every file path that was read or viewed in this conversation, one per line, exactly as written.',
  identifier: 'List every function, class, variable, config key, command and URL named in this conversation, one per line, in backticks.',
  assistantIdentifier: 'List every function, class, variable, config key, command and URL the assistant named in its own replies, one per line, in backticks.',
  decision: 'List the technical decisions and findings of this conversation (what was chosen and why, what the cause of a problem was), one per line, naming the files, functions, commands or packages involved in backticks.',
  error: 'List every error that occurred (quote its message) and say whether it was fixed, one per line.',
  currentWork: 'What was the assistant doing at the very end: which files, functions and commands was it working with? Name them.',
  task: 'List the items of the latest task list or plan, with their status, one per line.',
};

const QA_SYSTEM = 'You answer questions about a transcript you are given. Answer only from the transcript, exactly and completely; say "unknown" when it does not say.';

async function answerAll(model: EvalModel, context: string, probes: readonly Probe[]): Promise<number> {
  let hit = 0;
  for (const kind of PROBE_KINDS) {
    const mine = probes.filter((p) => p.kind === kind);
    if (mine.length === 0) continue;
    const res = await model.summarizer.complete(
      { system: QA_SYSTEM, prompt: `<transcript>\n${context}\n</transcript>\n\n${QUESTIONS[kind]}`, maxOutputTokens: Math.min(4096, Math.floor(model.window / 4)), purpose: 'compaction' },
      {},
    );
    const c = coverage(res.text, mine);
    hit += PROBE_KINDS.reduce((a, k) => a + c[k].hit, 0);
  }
  return hit;
}

function transcriptOf(items: readonly SummaryItem[], prep: CompactionPreparation): string {
  return serializeItems(items, { toolResultMaxChars: prep.settings.toolResultMaxChars });
}

/**
 * The probes asked of the model twice: with the compacted context (the
 * summary and the kept messages) and with the full one. The ratio is how much
 * of what the model could answer with everything it still answers after
 * compaction. A full context larger than the model's window is reported, not
 * truncated: truncating it would measure something else.
 */
async function askProbes(model: EvalModel, probes: readonly Probe[], summary: string, path: readonly SessionEntry[], prep: CompactionPreparation, deps: EvalDeps): Promise<QaScore> {
  const kept = transcriptOf(keptItems(path, prep), prep);
  const compactedContext = `[Summary of the earlier conversation]:\n${summary}\n\n${kept}`;
  const fullContext = `${transcriptOf([...prep.messagesToSummarize, ...prep.turnPrefixMessages], prep)}\n\n${kept}`;
  let compacted: number;
  try {
    compacted = await answerAll(model, compactedContext, probes);
  } catch (e) {
    return { compacted: 0, full: null, ratio: null, note: `compacted context failed: ${e instanceof Error ? e.message : String(e)}` };
  }
  const budget = model.window - Math.min(4096, Math.floor(model.window / 4)) - 500;
  if (deps.countText(fullContext) > budget) return { compacted, full: null, ratio: null, note: 'full context exceeds the model window' };
  try {
    const full = await answerAll(model, fullContext, probes);
    return { compacted, full, ratio: full > 0 ? compacted / full : null };
  } catch (e) {
    return { compacted, full: null, ratio: null, note: `full context failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** The messages a compaction keeps verbatim (from the cut to the leaf), as summary items. */
function keptItems(path: readonly SessionEntry[], prep: CompactionPreparation): SummaryItem[] {
  return path.slice(prep.firstKeptIndex).flatMap((e): SummaryItem[] => (e.type === 'message' ? [{ kind: 'message', entryId: e.id, message: e.message }] : []));
}
