import { FALLBACK_CONTEXT_WINDOW, lookupCatalog } from './catalog';
import { formatModelId, type ModelRef } from './modelId';

/** Where a window came from: the provider, the catalog, the operator's MODEL_CONTEXT_WINDOWS, the safe fallback, or the user's own setting in this browser. */
export type ContextWindowSource = 'provider' | 'catalog' | 'override' | 'fallback' | 'user';

export interface ContextWindowInfo {
  contextWindow: number;
  contextWindowSource: ContextWindowSource;
  maxOutputTokens?: number;
}

/**
 * Precedence: the operator's override (they know their deployment), then what
 * the provider reports for this model, then the catalog, then the fallback.
 */
export function resolveContextWindow(
  ref: ModelRef,
  reported: { contextWindow?: number; maxOutputTokens?: number; source?: ContextWindowSource } | undefined,
  overrides: ReadonlyMap<string, number>,
): ContextWindowInfo {
  const catalog = lookupCatalog(ref.provider, ref.model);
  const maxOutputTokens = reported?.maxOutputTokens ?? catalog?.maxOutputTokens;
  const withMax = (info: Omit<ContextWindowInfo, 'maxOutputTokens'>): ContextWindowInfo =>
    maxOutputTokens !== undefined ? { ...info, maxOutputTokens: Math.min(maxOutputTokens, info.contextWindow) } : info;

  // Keyed by the full id: the operator's overrides never reach a server the user entered in the browser.
  const override = overrides.get(formatModelId(ref));
  if (override) return withMax({ contextWindow: override, contextWindowSource: 'override' });
  if (reported?.contextWindow && reported.contextWindow > 0) {
    return withMax({ contextWindow: reported.contextWindow, contextWindowSource: reported.source ?? 'provider' });
  }
  if (catalog) return withMax({ contextWindow: catalog.contextWindow, contextWindowSource: 'catalog' });
  return withMax({ contextWindow: FALLBACK_CONTEXT_WINDOW, contextWindowSource: 'fallback' });
}
