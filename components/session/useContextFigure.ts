'use client';

import { useEffect, useState } from 'react';
import type { SessionFlows } from '@/lib/flows/app';
import type { TokenSyncOptions } from '@/lib/flows/tokenSync';
import type { ContextFigure } from '@/lib/tokens/pathIndex';
import type { SessionEntry } from '@/lib/session/types';

/**
 * The context figure for the active path, kept current by the token worker.
 * With no model there is no window and no tokenizer choice, but the figure is
 * still useful (extractive compaction, the timeline): o200k counts are used.
 */
export function useContextFigure(session: SessionFlows, path: SessionEntry[], opts: TokenSyncOptions | null): ContextFigure | null {
  const sync = session.sync;
  const [figure, setFigure] = useState<ContextFigure | null>(sync.figure);
  useEffect(() => sync.onFigure(setFigure), [sync]);
  const model = opts?.model;
  const window = opts?.contextWindow;
  const system = opts?.systemPrompt;
  useEffect(() => {
    void sync.sync(path, model ? { model, contextWindow: window, systemPrompt: system } : null);
  }, [sync, path, model, window, system]);
  return figure;
}
