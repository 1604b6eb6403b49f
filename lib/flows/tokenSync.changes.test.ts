import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { SessionTree } from '@/lib/session/tree';
import type { AssistantMessage, BranchSummaryEntry, SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { asyncTokens } from '@/lib/testing/flowPorts';
import type { TokensPort } from './ports';
import { TokenSync, type TokenSyncOptions } from './tokenSync';

/**
 * Which changes to an entry already on the path reach the token worker: each
 * change that can alter its count (a part's text or thinking growing in place,
 * usage arriving or changing, the reply's status or stop reason, a summary
 * edited) is sent as one update, and the figure then equals a fresh count.
 * On the real pi session (fixtures/real).
 */

const OPTS: TokenSyncOptions = { model: 'openai:gpt-4o', contextWindow: 128_000 };

function recordedTokens() {
  const real = asyncTokens();
  const calls: string[] = [];
  const port = new Proxy({} as TokensPort, {
    get: (_t, method: string) => {
      const fn = (real as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
      return (...args: unknown[]) => {
        calls.push(method);
        return fn(...args);
      };
    },
  });
  return { port, take: () => calls.splice(0) };
}

const store = { getCalibration: async () => undefined, setCalibration: async () => {}, setEntryTokens: async () => {} };

function realPath() {
  const { entries, meta } = importText(readFixture('piV1'), { fileName: 'pi.jsonl' }).sessions[0]!;
  return new SessionTree(entries).pathTo(meta.leafId);
}

type Reply = SessionEntry & { type: 'message'; message: AssistantMessage };

describe('TokenSync: a change to an entry on the path', () => {
  it('each change that can alter the count of a reply is sent as one update', async () => {
    const path = realPath();
    const at = path.findIndex((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.content[0]?.type === 'text' && e.message.content.length === 2);
    expect(at).toBeGreaterThan(0);
    const reply = path[at] as Reply;
    const tokens = recordedTokens();
    const sync = new TokenSync('s1', tokens.port, store);
    const withMessage = (patch: (m: AssistantMessage) => AssistantMessage) => ({ ...reply, message: patch(structuredClone(reply.message)) });
    const text = (reply.message.content[0] as { text: string }).text;
    const variants: [string, Reply][] = [
      ['the text as it was', reply],
      ['the text grown in place', withMessage((m) => ({ ...m, content: [{ type: 'text', text: `${text} and more` }, m.content[1]!] }))],
      ['thinking in place of the text', withMessage((m) => ({ ...m, content: [{ type: 'thinking', thinking: 'Which file holds the parser?' }, m.content[1]!] }))],
      ['the thinking grown in place', withMessage((m) => ({ ...m, content: [{ type: 'thinking', thinking: 'Which file holds the parser? The one under src/.' }, m.content[1]!] }))],
      ['usage changed', withMessage((m) => ({ ...m, content: [{ type: 'thinking', thinking: 'Which file holds the parser? The one under src/.' }, m.content[1]!], usage: { input: 1_234, output: 56 } }))],
      ['output usage changed', withMessage((m) => ({ ...m, content: [{ type: 'thinking', thinking: 'Which file holds the parser? The one under src/.' }, m.content[1]!], usage: { input: 1_234, output: 57 } }))],
      [
        'streaming',
        withMessage((m) => ({ ...m, content: [{ type: 'thinking', thinking: 'Which file holds the parser? The one under src/.' }, m.content[1]!], usage: { input: 1_234, output: 57 }, status: 'streaming' })),
      ],
      [
        'stopped at the length limit',
        withMessage((m) => ({
          ...m,
          content: [{ type: 'thinking', thinking: 'Which file holds the parser? The one under src/.' }, m.content[1]!],
          usage: { input: 1_234, output: 57 },
          status: 'streaming',
          stopReason: 'length',
        })),
      ],
    ];
    await sync.sync(path, OPTS);
    tokens.take();
    let last = path;
    for (const [what, entry] of variants.slice(1)) {
      last = path.with(at, entry);
      await sync.sync(last, OPTS);
      expect(tokens.take(), what).toEqual(['update']);
      // The same again, as new objects: nothing to send.
      await sync.sync(structuredClone(last), OPTS);
      expect(tokens.take(), `${what}, read again`).toEqual([]);
    }
    expect(sync.figure).toEqual((await asyncTokens().loadPath('fresh', last, OPTS)).figure);
  });

  it('an edited summary is sent as one update', async () => {
    const path = realPath();
    const at = path.findIndex((e) => e.type === 'compaction');
    expect(at).toBeGreaterThan(0);
    const c = path[at]!;
    if (c.type !== 'compaction') throw new Error('not a compaction');
    const tokens = recordedTokens();
    const sync = new TokenSync('s1', tokens.port, store);
    await sync.sync(path, OPTS);
    tokens.take();
    const edited = path.with(at, { ...c, summary: `${c.summary}\n\n## Note\nThe tests pass on CI.` });
    await sync.sync(edited, OPTS);
    expect(tokens.take()).toEqual(['update']);
    expect(sync.figure).toEqual((await asyncTokens().loadPath('fresh', edited, OPTS)).figure);
  });

  it('a tool call’s arguments grown in place are sent as one update', async () => {
    const path = realPath();
    const at = path.findIndex((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.content.some((p) => p.type === 'toolCall'));
    expect(at).toBeGreaterThan(0);
    const reply = path[at] as Reply;
    const tokens = recordedTokens();
    const sync = new TokenSync('s1', tokens.port, store);
    await sync.sync(path, OPTS);
    tokens.take();
    const grown = structuredClone(reply);
    const call = grown.message.content.find((p) => p.type === 'toolCall')!;
    if (call.type !== 'toolCall') throw new Error('not a tool call');
    call.arguments = { ...call.arguments, note: 'the rest of the arguments, streamed after the first chunk' };
    const edited = path.with(at, grown);
    await sync.sync(edited, OPTS);
    expect(tokens.take()).toEqual(['update']);
    expect(sync.figure).toEqual((await asyncTokens().loadPath('fresh', edited, OPTS)).figure);
    await sync.sync(structuredClone(edited), OPTS);
    expect(tokens.take()).toEqual([]);
  });

  it('an edited branch summary is sent as one update', async () => {
    const path = realPath();
    const leaf = path.at(-1)!;
    const summary: BranchSummaryEntry = {
      type: 'branch_summary',
      id: 'bs-1',
      parentId: leaf.id,
      timestamp: leaf.timestamp,
      fromId: path[1]!.id,
      summary: '## Goal\nThe approach left behind.',
      details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } },
    };
    // Edited from an untouched copy: the in-process service stores its count on the objects it was given.
    const untouched = structuredClone(summary);
    const withSummary: SessionEntry[] = [...path, summary];
    const tokens = recordedTokens();
    const sync = new TokenSync('s1', tokens.port, store);
    await sync.sync(withSummary, OPTS);
    tokens.take();
    const edited = withSummary.with(-1, { ...untouched, summary: `${untouched.summary}\nIt failed on the second file.` });
    await sync.sync(edited, OPTS);
    expect(tokens.take()).toEqual(['update']);
    expect(sync.figure).toEqual((await asyncTokens().loadPath('fresh', edited, OPTS)).figure);
  });
});
