import { describe, expect, it } from 'vitest';
import type { ChatMessage, SessionEntry } from '@/lib/session/types';
import { loadSession } from '@/lib/testing/compactionData';
import { SUMMARIZER_SYSTEM, assemblePrompt, branchInstructions, initialInstructions, turnPrefixInstructions, updateInstructions } from './prompts';
import { serializeItems, serializeMessage, truncateMiddle } from './serialize';

const opts = { toolResultMaxChars: 2000 };
const messageOf = (e: SessionEntry | undefined): ChatMessage => {
  if (e?.type !== 'message') throw new Error('not a message');
  return e.message;
};

describe('transcript serialization', () => {
  const pi = loadSession('piV1');
  const byId = new Map(pi.path.map((e) => [e.id, e]));

  it('images become a marker with type and size, never base64 (pi screenshot tool results, Claude Code pasted image)', () => {
    const shot = serializeMessage(messageOf(byId.get('pi-811')), opts);
    expect(shot).toMatch(/\[image: image\/png, \d+x\d+\]/);
    expect(shot).not.toContain('iVBORw0KGgo');
    const cc = loadSession('claudeLog');
    const withImage = cc.snapshot.entries.find((e) => e.type === 'message' && e.message.content.some((p) => p.type === 'image'))!;
    const text = serializeMessage(messageOf(withImage), opts);
    expect(text).toMatch(/^\[User\]: /);
    expect(text).toMatch(/\[image: image\/png, \d+x\d+\]/);
    expect(text.length).toBeLessThan(5000);
  });

  it('long tool results are cut to toolResultMaxChars with a marker saying how much', () => {
    const big = messageOf(byId.get('pi-329'));
    const full = big.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    expect(full.length).toBeGreaterThan(20_000);
    const text = serializeMessage(big, opts);
    expect(text).toMatch(/^\[Tool result\] bash: /);
    expect(text).toContain(`of ${full.length.toLocaleString('en-US')} characters truncated`);
    expect(text.length).toBeLessThan(2200);
    // Head and tail survive.
    expect(text).toContain(full.slice(0, 200));
    expect(text).toContain(full.slice(-100));
  });

  it('marks failed tool results and keeps tool call arguments readable', () => {
    const failed = pi.path.find((e) => e.type === 'message' && e.message.role === 'toolResult' && e.message.isError)!;
    expect(serializeMessage(messageOf(failed), opts)).toMatch(/^\[Tool result\] \w+ \(error\): /);
    // A `write` of a whole file: the content is cut, the path stays.
    const write = pi.path.find((e) => e.type === 'message' && e.message.content.some((p) => p.type === 'toolCall' && p.name === 'write'))!;
    const call = messageOf(write).content.find((p) => p.type === 'toolCall')!;
    const text = serializeMessage(messageOf(write), opts);
    expect(text).toContain('[Tool call] write(');
    expect(text).toContain(JSON.stringify(call.type === 'toolCall' ? call.arguments.path : null));
  });

  it('roles, thinking, interrupted replies and summaries have their own markers', () => {
    const text = serializeItems(
      [
        { kind: 'message', entryId: 'u', message: { role: 'user', content: [{ type: 'text', text: 'Please fix it.\n- [ ] keep tests green' }] } },
        {
          kind: 'message',
          entryId: 'a',
          message: {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'the bug is in parse()' },
              { type: 'thinking', thinking: 'opaque', redacted: true },
              { type: 'text', text: 'Looking.' },
              { type: 'toolCall', id: 'c', name: 'bash', arguments: { command: 'npm test' } },
            ],
            stopReason: 'aborted',
          },
        },
        { kind: 'branchSummary', entryId: 'b', summary: 'Tried approach A; it failed.' },
      ],
      opts,
    );
    expect(text).toBe(
      [
        '[User]: Please fix it.\n- [ ] keep tests green',
        '[Assistant thinking]: the bug is in parse()\n[Assistant]: Looking.\n[Tool call] bash({"command":"npm test"})\n[Assistant reply was interrupted]',
        '[Branch summary]: Tried approach A; it failed.',
      ].join('\n\n'),
    );
  });

  it('truncateMiddle is a no-op under the limit and reports the cut otherwise', () => {
    expect(truncateMiddle('abc', 3)).toBe('abc');
    const t = truncateMiddle('a'.repeat(100) + 'b'.repeat(100), 20);
    expect(t.startsWith('a'.repeat(14))).toBe(true);
    expect(t.endsWith('b'.repeat(6))).toBe(true);
    expect(t).toContain('180 of 200 characters truncated');
  });
});

describe('prompts', () => {
  it('frame the transcript as data: <conversation> tags, summarizer-only system prompt, explicit no-continue rule', () => {
    const prompt = assemblePrompt(null, '[User]: hi', initialInstructions());
    expect(prompt.startsWith('<conversation>\n[User]: hi\n</conversation>')).toBe(true);
    expect(prompt).toContain('Do NOT continue the conversation');
    expect(SUMMARIZER_SYSTEM).toMatch(/never take part/);
    expect(SUMMARIZER_SYSTEM).toMatch(/do not write the assistant's next reply/i);
  });

  it('ask for the handoff sections, verbatim requirements and exact paths', () => {
    const p = initialInstructions();
    for (const h of ['## Goal', '## Constraints & Preferences', '## Task List', '## Current Work', '## Files', '## Errors and Fixes', '## Decisions', '## Findings and Names', '## Next Step']) expect(p).toContain(h);
    expect(p).toMatch(/checklists verbatim/);
    expect(p).toMatch(/file paths/);
    expect(p).toMatch(/error messages/);
    expect(p).toContain('starting with the line "## Goal"');
  });

  it('ask for the scratchpad first only when asked to, and say it is removed', () => {
    const p = initialInstructions(undefined, { scratchpad: true });
    expect(p).toContain('inside <analysis> tags');
    expect(p).toContain('inside <summary> tags');
    expect(initialInstructions()).not.toContain('<analysis>');
    expect(updateInstructions(undefined, { scratchpad: true })).toContain('<analysis>');
  });

  it('update, turn-prefix and branch prompts differ in purpose; custom focus is appended to each', () => {
    const focus = 'Focus on the database migration.';
    const withPrev = assemblePrompt('OLD SUMMARY', 'T', updateInstructions(focus));
    expect(withPrev.startsWith('<previous-summary>\nOLD SUMMARY\n</previous-summary>\n\n<conversation>')).toBe(true);
    expect(withPrev).toMatch(/UPDATED handoff summary/);
    expect(turnPrefixInstructions(focus)).toMatch(/FIRST PART of a single turn/);
    expect(branchInstructions(focus)).toMatch(/branch of the conversation that the user has just left/);
    for (const p of [initialInstructions(focus), updateInstructions(focus), turnPrefixInstructions(focus), branchInstructions(focus)]) expect(p.endsWith(focus)).toBe(true);
    expect(initialInstructions('  ')).not.toMatch(/Additional focus/);
  });
});
