import { agentCompactionsOn, type AgentCompaction } from '@/lib/compaction/eval/agentCompare';
import type { EvalModel, EvalSubject } from '@/lib/compaction/eval/run';
import { lookupCatalog, FALLBACK_CONTEXT_WINDOW } from '@/lib/providers/catalog';
import { readServerConfig, type EnvLike } from '@/lib/providers/env';
import { resolveLanguageModel } from '@/lib/providers/factory';
import type { FetchLike } from '@/lib/providers/guardedFetch';
import { formatModelId } from '@/lib/providers/modelId';
import { FIXTURES, type FixtureName } from '@/lib/testing/fixtures';
import { loadSessions } from '@/lib/testing/compactionData';
import { languageModelSummarizer } from '@/lib/testing/languageModelSummarizer';

/**
 * What `npm run eval` measures and with what: the real fixtures (the longest
 * path of each file, its messages only, so a transcript's own compactions do
 * not stand in the way), and the model the app's server would use, read from
 * the same environment (SUMMARIZER_MODEL, else DEFAULT_MODEL, with the
 * provider's key or base URL). Apart from scripts/eval.ts so the CI test runs
 * exactly this against the scripted mock model.
 */

/** Shown in the report; every fixture file in fixtures/real is measured. */
export const EVAL_FIXTURES: readonly FixtureName[] = Object.keys(FIXTURES) as FixtureName[];

export function loadEvalSubjects(names: readonly FixtureName[] = EVAL_FIXTURES): EvalSubject[] {
  return names.map((name) => {
    const paths = loadSessions(name).map((s) => s.path.filter((e) => e.type === 'message'));
    const longest = paths.sort((a, b) => b.length - a.length)[0] ?? [];
    return { name, path: longest };
  });
}

/** Every compaction an agent wrote in the fixtures, on each session's active path. */
export function loadAgentCompactions(names: readonly FixtureName[] = EVAL_FIXTURES): AgentCompaction[] {
  return names.flatMap((name) => loadSessions(name).flatMap((s) => agentCompactionsOn(name, s.path)));
}

/** The configured model, null when the environment names none, or why it cannot be used. */
export function evalModelFromEnv(env: EnvLike, fetch: FetchLike): EvalModel | null | { error: string } {
  const config = readServerConfig(env);
  const ref = config.summarizerModel ?? config.defaultModel;
  if (!ref) return null;
  const resolved = resolveLanguageModel(ref, config, undefined, fetch);
  if (!resolved.ok) return { error: resolved.message };
  const id = formatModelId(ref);
  const window = config.contextOverrides.get(id) ?? lookupCatalog(ref.provider, ref.model)?.contextWindow ?? FALLBACK_CONTEXT_WINDOW;
  return { summarizer: languageModelSummarizer(resolved.model, { modelName: id, temperature: 0 }), window };
}
