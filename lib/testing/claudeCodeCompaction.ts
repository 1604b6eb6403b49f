import { readFixture } from './fixtures';

/**
 * A real Claude Code transcript with a compaction in it, in the shape Claude
 * Code writes one: a `system` line with subtype `compact_boundary`
 * (`parentUuid: null`, the last line before it as `logicalParentUuid`,
 * `compactMetadata`), then the summary as a `user` line with
 * `isCompactSummary: true` whose parent is the boundary, then the
 * conversation going on from the summary. None of the real transcripts in
 * fixtures/real has one yet, so tests build it from one of them (the file
 * itself is never edited). Test-only.
 */

type Line = Record<string, unknown>;

export interface CompactedClaudeCode {
  text: string;
  boundaryUuid: string;
  summaryUuid: string;
  /** The text of the summary line. */
  summary: string;
  /** The last main-chain line before the boundary (its logical parent), null when the boundary opens the file. */
  lastBeforeUuid: string | null;
  /** The prompt and the reply written after the summary. */
  promptUuid: string;
  replyUuid: string;
  preTokens: number;
}

export interface CompactionOptions {
  /** What the boundary names as its logical parent; default: the last main-chain line before it. */
  logicalParentUuid?: string;
  /** Put the boundary first, before the whole real transcript (whose first line then follows the conversation after the summary). */
  atStart?: boolean;
  preTokens?: number;
}

export const CLAUDE_SUMMARY =
  'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n' +
  'Analysis:\nThe user asked to refactor the timeline filtering and to match the group header colour.\n\n' +
  'Summary:\n1. Primary Request and Intent: hide the vis-group instead of its items.\n2. Pending Tasks: none.';

function parse(text: string): Line[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The real transcript `fixture` with a compaction appended after its last main-chain line (or put before it all). */
export function claudeCodeWithCompaction(fixture: 'claudeLog' | 'claudeViewer' = 'claudeLog', opts: CompactionOptions = {}): CompactedClaudeCode {
  const lines = parse(readFixture(fixture));
  const main = lines.filter((l) => typeof l.uuid === 'string' && l.isSidechain !== true);
  const last = main.at(-1)!;
  const first = main[0]!;
  const common = { isSidechain: false, userType: 'external', cwd: last.cwd, sessionId: last.sessionId, version: last.version, gitBranch: last.gitBranch ?? '' };
  const at = opts.atStart ? Date.parse(String(first.timestamp)) - 60_000 : Date.parse(String(last.timestamp)) + 1_000;
  const ids = { boundary: 'cc0b0a1d-0000-4000-8000-00000000b0a1', summary: 'cc0b0a1d-0000-4000-8000-00000000c0de', prompt: 'cc0b0a1d-0000-4000-8000-0000000000a1', reply: 'cc0b0a1d-0000-4000-8000-0000000000a2' };
  const lastBeforeUuid = opts.atStart ? null : String(last.uuid);
  const preTokens = opts.preTokens ?? 154_321;
  const boundary: Line = {
    parentUuid: null,
    logicalParentUuid: opts.logicalParentUuid ?? lastBeforeUuid,
    ...common,
    type: 'system',
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    isMeta: false,
    timestamp: iso(at),
    uuid: ids.boundary,
    level: 'info',
    compactMetadata: { trigger: 'auto', preTokens },
  };
  const summaryLine: Line = {
    parentUuid: ids.boundary,
    ...common,
    type: 'user',
    message: { role: 'user', content: CLAUDE_SUMMARY },
    isVisibleInTranscriptOnly: true,
    isCompactSummary: true,
    uuid: ids.summary,
    timestamp: iso(at + 1),
  };
  const prompt: Line = { parentUuid: ids.summary, ...common, type: 'user', message: { role: 'user', content: 'Now make the group header bold as well.' }, uuid: ids.prompt, timestamp: iso(at + 2_000) };
  const reply: Line = {
    parentUuid: ids.prompt,
    ...common,
    type: 'assistant',
    message: {
      id: 'msg_cc0b0a1d_after_compaction',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-20250514',
      content: [{ type: 'text', text: 'Done: the group header is bold now.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 3_200, output_tokens: 14 },
    },
    uuid: ids.reply,
    timestamp: iso(at + 4_000),
  };
  let out: Line[];
  if (opts.atStart) {
    // The file goes on where the summary left off: its first line follows the reply written after the summary.
    const rest = lines.map((l) => (l === first ? { ...l, parentUuid: ids.reply } : l));
    out = [boundary, summaryLine, prompt, reply, ...rest];
  } else out = [...lines, boundary, summaryLine, prompt, reply];
  return {
    text: out.map((l) => JSON.stringify(l)).join('\n') + '\n',
    boundaryUuid: ids.boundary,
    summaryUuid: ids.summary,
    summary: CLAUDE_SUMMARY,
    lastBeforeUuid,
    promptUuid: ids.prompt,
    replyUuid: ids.reply,
    preTokens,
  };
}
