import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * A MockLanguageModelV4 whose reply is computed from the request, streamed in
 * small deltas and cut at maxOutputTokens like a real model. Test-only.
 */

export interface ScriptedCall {
  system: string;
  prompt: string;
  maxOutputTokens: number | undefined;
  output: string;
}

export interface ScriptedModelOptions {
  /** Delay between streamed chunks (ms); lets a test abort mid-stream. */
  chunkDelayInMs?: number;
  /** Characters per streamed delta. */
  deltaChars?: number;
  provider?: string;
  modelId?: string;
  /** Report a reply cut at maxOutputTokens as finished normally: a model that stops right at its limit (worst case for budgets). */
  stopAtLimit?: boolean;
}

const AS_TEXT = { disallowedSpecial: new Set<string>() };

export function scriptedModel(reply: (req: { system: string; prompt: string; call: number; maxOutputTokens: number | undefined }) => string, opts: ScriptedModelOptions = {}) {
  const calls: ScriptedCall[] = [];
  const model = new MockLanguageModelV4({
    provider: opts.provider ?? 'mock',
    modelId: opts.modelId ?? 'summarizer',
    doStream: async (options) => {
      let system = '';
      let prompt = '';
      for (const m of options.prompt) {
        if (m.role === 'system') system += m.content;
        else if (m.role === 'user') for (const p of m.content) if (p.type === 'text') prompt += p.text;
      }
      let output = reply({ system, prompt, call: calls.length + 1, maxOutputTokens: options.maxOutputTokens });
      let finish: 'stop' | 'length' = 'stop';
      if (options.maxOutputTokens !== undefined) {
        const toks = encode(output, AS_TEXT);
        if (toks.length > options.maxOutputTokens) {
          output = decode(toks.slice(0, options.maxOutputTokens));
          if (!opts.stopAtLimit) finish = 'length';
        }
      }
      calls.push({ system, prompt, maxOutputTokens: options.maxOutputTokens, output });
      const size = opts.deltaChars ?? 64;
      const deltas: string[] = [];
      for (let i = 0; i < output.length; i += size) deltas.push(output.slice(i, i + size));
      const outTokens = encode(output, AS_TEXT).length;
      return {
        stream: simulateReadableStream({
          // null, not 0: a 0 ms delay is still a timer per chunk (about 1 ms each), seconds for a long reply.
          initialDelayInMs: opts.chunkDelayInMs ?? null,
          chunkDelayInMs: opts.chunkDelayInMs ?? null,
          chunks: [
            { type: 'text-start' as const, id: 't' },
            ...deltas.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
            { type: 'text-end' as const, id: 't' },
            {
              type: 'finish' as const,
              finishReason: { unified: finish, raw: undefined },
              usage: {
                inputTokens: { total: encode(system + prompt, AS_TEXT).length, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: outTokens, text: outTokens, reasoning: undefined },
              },
            },
          ],
        }),
      };
    },
  });
  return { model, calls };
}
