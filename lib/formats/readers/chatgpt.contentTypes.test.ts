import { describe, expect, it } from 'vitest';
import { messageText } from '@/lib/session/messages';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectToolResultsPaired, expectWellFormed, type Raw } from '@/lib/testing/formatChecks';
import { readChatGpt } from './chatgpt';

/**
 * The content types a ChatGPT export holds besides plain text (code interpreter, browsing, reasoning,
 * custom instructions), each grafted onto the real conversation of chatgpt-tree.json after the
 * message it opens at, so the rest of the conversation stays as exported.
 */
const base = (JSON.parse(readFixture('chatgptTree')) as Raw[])[0]!;

type Added = { id: string; role: string; content: Raw; recipient?: string; name?: string; status?: string; metadata?: Raw };

/** The real conversation with `added` chained below its current message; the last one becomes current. */
function grafted(added: Added[], under = base.current_node as string): Raw {
  const conv = structuredClone(base);
  const mapping = conv.mapping as Record<string, Raw>;
  let parent = under;
  for (const a of added) {
    (mapping[parent]!.children as string[]).push(a.id);
    mapping[a.id] = {
      id: a.id,
      parent,
      children: [],
      message: { id: a.id, author: { role: a.role, name: a.name ?? null, metadata: {} }, create_time: 1700000000, content: a.content, status: a.status ?? 'finished_successfully', recipient: a.recipient ?? 'all', metadata: a.metadata ?? {} },
    };
    parent = a.id;
  }
  conv.current_node = parent;
  return conv;
}

const read = (conv: Raw) => readChatGpt(JSON.stringify([conv]));
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id)!;
const textOf = (e: SessionEntry) => (e.type === 'message' ? messageText(e.message) : '');

describe('ChatGPT content types', () => {
  it('code interpreter: code to python is a call with the code, its output the result, a code reply a fenced block', () => {
    const r = read(
      grafted([
        { id: 'ask', role: 'user', content: { content_type: 'text', parts: ['plot it'] } },
        { id: 'run', role: 'assistant', recipient: 'python', content: { content_type: 'code', language: 'unknown', text: 'print(6 * 7)' } },
        { id: 'out', role: 'tool', name: 'python', content: { content_type: 'execution_output', text: '42' } },
        { id: 'show', role: 'assistant', content: { content_type: 'code', language: 'python', text: 'x = 42' } },
      ]),
    );
    const s = r.sessions[0]!;
    expectWellFormed(s);
    expect(expectToolResultsPaired(s)).toBe(1);
    expect(entry(s.entries, 'run')).toMatchObject({ message: { role: 'assistant', content: [{ type: 'toolCall', id: 'run', name: 'python', arguments: { code: 'print(6 * 7)' } }], stopReason: 'toolUse' } });
    expect(entry(s.entries, 'out')).toMatchObject({ message: { role: 'toolResult', toolCallId: 'run', toolName: 'python', content: [{ type: 'text', text: '42' }], isError: false } });
    expect(textOf(entry(s.entries, 'show'))).toBe('```python\nx = 42\n```');
    expect(s.meta.leafId).toBe('show');
    expect(r.warnings).toEqual([]);
  });

  it('a code block in an unknown language gets a bare fence; odd characters are dropped from the language', () => {
    const s = read(
      grafted([
        { id: 'a', role: 'assistant', content: { content_type: 'code', language: 'unknown', text: 'ls' } },
        { id: 'b', role: 'assistant', content: { content_type: 'code', language: 'c++ <x>', text: 'int x;' } },
        { id: 'c', role: 'assistant', content: { content_type: 'code', text: 'y' } },
      ]),
    ).sessions[0]!;
    expect(textOf(entry(s.entries, 'a'))).toBe('```\nls\n```');
    expect(textOf(entry(s.entries, 'b'))).toBe('```c++x\nint x;\n```');
    expect(textOf(entry(s.entries, 'c'))).toBe('```\ny\n```');
  });

  it('a call to a plugin or browser takes its JSON text as arguments, other text as { text }', () => {
    const s = read(
      grafted([
        { id: 'j', role: 'assistant', recipient: 'browser', content: { content_type: 'text', parts: ['{"query": "weather Paris"}'] } },
        { id: 'r1', role: 'tool', name: 'browser', content: { content_type: 'text', parts: ['Sunny'] } },
        { id: 't', role: 'assistant', recipient: 'browser', content: { content_type: 'text', parts: ['search("weather")'] } },
        { id: 'r2', role: 'tool', content: { content_type: 'text', parts: ['Rain'] } },
        { id: 'n', role: 'assistant', recipient: 'browser', content: { content_type: 'text', parts: ['[1, 2]'] } },
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 'j')).toMatchObject({ message: { content: [{ type: 'toolCall', name: 'browser', arguments: { query: 'weather Paris' } }] } });
    expect(entry(s.entries, 't')).toMatchObject({ message: { content: [{ type: 'toolCall', arguments: { text: 'search("weather")' } }] } });
    // A JSON value that is not an object is not an argument list either.
    expect(entry(s.entries, 'n')).toMatchObject({ message: { content: [{ type: 'toolCall', arguments: { text: '[1, 2]' } }] } });
    // A tool message without a name answers under the name of the call above it.
    expect(entry(s.entries, 'r2')).toMatchObject({ message: { role: 'toolResult', toolCallId: 't', toolName: 'browser', content: [{ type: 'text', text: 'Rain' }] } });
  });

  it('a call cut off by the user stays interrupted; a tool error is an error result reading "name: text"', () => {
    const s = read(
      grafted([
        { id: 'c', role: 'assistant', recipient: 'python', status: 'in_progress', content: { content_type: 'code', text: 'while True: pass' } },
        { id: 'e', role: 'tool', name: 'python', content: { content_type: 'system_error', name: 'KeyboardInterrupt', text: 'Execution interrupted' } },
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 'c')).toMatchObject({ message: { stopReason: 'interrupted' } });
    expect(entry(s.entries, 'e')).toMatchObject({ message: { role: 'toolResult', isError: true, content: [{ type: 'text', text: 'KeyboardInterrupt: Execution interrupted' }] } });
  });

  it('reasoning (thoughts, reasoning_recap) becomes thinking', () => {
    const s = read(
      grafted([
        { id: 'th', role: 'assistant', content: { content_type: 'thoughts', thoughts: [{ summary: 'Checking units', content: 'Meters, not feet.' }, { summary: 'Answer', content: '' }] } },
        { id: 'rc', role: 'assistant', content: { content_type: 'reasoning_recap', content: 'Thought for 4 seconds' } },
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 'th')).toMatchObject({ message: { content: [{ type: 'thinking', thinking: 'Checking units\nMeters, not feet.\n\nAnswer' }] } });
    expect(entry(s.entries, 'rc')).toMatchObject({ message: { content: [{ type: 'thinking', thinking: 'Thought for 4 seconds' }] } });
  });

  it('browsing results read as their text: the page and its summary, a quote with its title and address', () => {
    const s = read(
      grafted([
        { id: 'call', role: 'assistant', recipient: 'browser', content: { content_type: 'code', text: 'search("tides")' } },
        { id: 'disp', role: 'tool', name: 'browser', content: { content_type: 'tether_browsing_display', result: '# Tides\nHigh at 6', summary: 'None' } },
        { id: 'disp2', role: 'tool', name: 'browser', content: { content_type: 'tether_browsing_display', result: '', summary: 'A tide table' } },
        { id: 'quote', role: 'tool', name: 'browser', content: { content_type: 'tether_quote', title: 'Tide tables', url: 'https://tides.example/brest', text: 'High water 06:12' } },
        { id: 'quote2', role: 'tool', name: 'browser', content: { content_type: 'tether_quote', url: 'https://tides.example/', text: '' } },
      ]),
    ).sessions[0]!;
    expect(textOf(entry(s.entries, 'disp'))).toBe('# Tides\nHigh at 6');
    expect(textOf(entry(s.entries, 'disp2'))).toBe('A tide table');
    expect(textOf(entry(s.entries, 'quote'))).toBe('Tide tables — https://tides.example/brest\nHigh water 06:12');
    expect(textOf(entry(s.entries, 'quote2'))).toBe('https://tides.example/');
  });

  it('custom instructions are a note and the system prompt; a system message with text is a note too, the first one wins', () => {
    const s = read(
      grafted([
        { id: 'ci', role: 'user', content: { content_type: 'user_editable_context', user_profile: 'I am a sailor.', user_instructions: 'Answer briefly.' } },
        { id: 'sys', role: 'system', content: { content_type: 'text', parts: ['  Be kind.  '] } },
        { id: 'q', role: 'user', content: { content_type: 'text', parts: ['tides?'] } },
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 'ci')).toMatchObject({ type: 'custom', customType: 'chatgpt:custom_instructions', display: 'Custom instructions' });
    expect(entry(s.entries, 'sys')).toMatchObject({ type: 'custom', customType: 'chatgpt:system', data: { text: 'Be kind.' }, display: 'Be kind.' });
    expect(s.meta.systemPrompt).toBe('I am a sailor.\n\nAnswer briefly.');
    const own = read(grafted([{ id: 'sys', role: 'system', content: { content_type: 'text', parts: ['Be kind.'] } }])).sessions[0]!;
    expect(own.meta.systemPrompt).toBe('Be kind.');
    // Empty custom instructions set no prompt.
    const empty = read(grafted([{ id: 'ci', role: 'user', content: { content_type: 'user_editable_context' } }])).sessions[0]!;
    expect(empty.meta.systemPrompt).toBeUndefined();
  });

  it('keeps the images of a multimodal reply as placeholders and its text; drops a hidden empty user message', () => {
    const s = read(
      grafted([
        { id: 'hid', role: 'user', content: { content_type: 'text', parts: [''] }, metadata: { is_visually_hidden_from_conversation: true } },
        { id: 'img', role: 'assistant', content: { content_type: 'multimodal_text', parts: [{ content_type: 'image_asset_pointer', asset_pointer: 'file-service://file-9' }, { text: 'a chart' }, '', 'done'] } },
        { id: 'bare', role: 'assistant', content: { content_type: 'multimodal_text', parts: [{ content_type: 'image_asset_pointer' }, 7, null] } },
      ]),
    ).sessions[0]!;
    expect(s.entries.some((e) => e.id === 'hid')).toBe(false);
    expect(entry(s.entries, 'img')).toMatchObject({ parentId: base.current_node, message: { content: [{ type: 'text', text: '[image file-service://file-9]' }, { type: 'text', text: 'a chart' }, { type: 'text', text: 'done' }] } });
    expect(entry(s.entries, 'bare')).toMatchObject({ message: { content: [{ type: 'text', text: '[image]' }] } });
  });

  it('an image a user sent keeps its type from the metadata, or a generic one', () => {
    const s = read(
      grafted([
        { id: 'u', role: 'user', content: { content_type: 'multimodal_text', parts: [{ content_type: 'image_asset_pointer', asset_pointer: 'a', metadata: { mime_type: 'image/webp' } }, { content_type: 'image_asset_pointer', asset_pointer: 'b', mime_type: 'image/png' }, { content_type: 'image_asset_pointer', asset_pointer: 'c' }] } },
      ]),
    ).sessions[0]!;
    expect(entry(s.entries, 'u')).toMatchObject({ message: { content: [{ type: 'image', url: 'a', mimeType: 'image/webp' }, { type: 'image', url: 'b', mimeType: 'image/png' }, { type: 'image', url: 'c', mimeType: 'image/*' }] } });
  });

  it('a tool message with no call above it and an unknown role are notes, shown and never sent', () => {
    const s = read(grafted([{ id: 'orphan', role: 'tool', name: 'dalle', content: { content_type: 'text', parts: ['x'.repeat(300)] } }, { id: 'odd', role: 'critic', content: { content_type: 'text', parts: ['meh'] } }], 'aaa297ba-e2da-440e-84f4-e62e7be8b003')).sessions[0]!;
    expect(entry(s.entries, 'orphan')).toMatchObject({ type: 'custom', customType: 'chatgpt:tool', display: `dalle: ${'x'.repeat(200)}` });
    expect(entry(s.entries, 'odd')).toMatchObject({ type: 'custom', customType: 'chatgpt:critic', display: 'critic message' });
    const noName = read(grafted([{ id: 'orphan', role: 'tool', content: { content_type: 'text', parts: ['hi'] } }])).sessions[0]!;
    expect(entry(noName.entries, 'orphan')).toMatchObject({ type: 'custom', display: 'tool: hi' });
  });

  it('an unknown content type is imported as its text, with one warning per type', () => {
    const r = read(
      grafted([
        { id: 'a', role: 'assistant', content: { content_type: 'sonic_webpage', text: 'page text' } },
        { id: 'b', role: 'assistant', content: { content_type: 'sonic_webpage', parts: ['from parts'] } },
        { id: 'c', role: 'assistant', content: { content_type: 'model_editable_context', model_set_context: 'likes tides' } },
      ]),
    );
    const s = r.sessions[0]!;
    expect(textOf(entry(s.entries, 'a'))).toBe('page text');
    expect(textOf(entry(s.entries, 'b'))).toBe('from parts');
    expect(JSON.parse(textOf(entry(s.entries, 'c')))).toEqual({ model_set_context: 'likes tides' });
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(/^Conversation 1 \(.+\): ChatGPT content type .*sonic_webpage.* is not known; its fields were imported as text\.$/);
    expect(r.warnings[1]).toMatch(/model_editable_context/);
  });
});

describe('ChatGPT conversation structure', () => {
  it('opens at the newest message, with a warning, when current_node is not in the mapping', () => {
    const conv = structuredClone(base);
    conv.current_node = 'gone';
    const r = read(conv);
    expect(r.sessions[0]!.meta.leafId).toBe(read(base).sessions[0]!.meta.leafId);
    expect(r.warnings).toEqual([expect.stringMatching(/^Conversation 1: its current message is not in the mapping; opened at the newest message instead\.$/)]);
  });

  it('leaves out nodes on a parent loop, with a warning, and keeps the rest', () => {
    const conv = grafted([]);
    const mapping = conv.mapping as Record<string, Raw>;
    mapping.x = { id: 'x', parent: 'y', children: ['y'], message: { author: { role: 'user' }, content: { content_type: 'text', parts: ['x'] } } };
    mapping.y = { id: 'y', parent: 'x', children: ['x'], message: { author: { role: 'user' }, content: { content_type: 'text', parts: ['y'] } } };
    const r = read(conv);
    expect(r.sessions[0]!.entries.map((e) => e.id)).toEqual(read(base).sessions[0]!.entries.map((e) => e.id));
    expect(r.warnings).toEqual(['Conversation 1: 2 node(s) sit on a parent loop and were left out.']);
  });

  it('titles an untitled conversation by its first user message and takes the model of the path', () => {
    const conv = structuredClone(base);
    delete conv.title;
    const s = read(conv).sessions[0]!;
    expect(s.meta.title).toBe('hi there');
    const noModel = structuredClone(base);
    for (const n of Object.values(noModel.mapping as Record<string, Raw>)) if (n.message) (n.message as Raw).metadata = {};
    expect(read(noModel).sessions[0]!.meta.model).toBe(`openai:${base.default_model_slug as string}`);
    delete noModel.default_model_slug;
    expect(read(noModel).sessions[0]!.meta.model).toBeUndefined();
  });
});
