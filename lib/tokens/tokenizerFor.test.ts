import { describe, expect, it } from 'vitest';
import { PROVIDER_IDS, type ProviderId } from '@/lib/providers/descriptors';
import { formatModelId, parseModelId } from '@/lib/providers/modelId';
import { tokenizerFor, type TokenizerInfo } from './tokenizerFor';

describe('tokenizerFor', () => {
  it('maps OpenAI models to their own encodings, exactly', () => {
    for (const m of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-nano', 'gpt-5', 'gpt-5-mini', 'o1', 'o3-mini', 'o4-mini', 'chatgpt-4o-latest', 'gpt-oss-120b']) {
      expect(tokenizerFor(`openai:${m}`), m).toMatchObject({ encoding: 'o200k_base', exact: true, family: 'gpt-o200k', imageFormula: 'openai' });
    }
    for (const m of ['gpt-4', 'gpt-4-turbo', 'gpt-4-0613', 'gpt-3.5-turbo', 'gpt-3.5-turbo-16k']) {
      expect(tokenizerFor(`openai:${m}`), m).toMatchObject({ encoding: 'cl100k_base', exact: true, family: 'gpt-cl100k' });
    }
  });

  it('treats an unknown OpenAI model as o200k but not exact', () => {
    expect(tokenizerFor('openai:some-future-model')).toMatchObject({ encoding: 'o200k_base', exact: false });
  });

  it('estimates Claude, Gemini and local models with o200k and their own image formulas', () => {
    expect(tokenizerFor('anthropic:claude-sonnet-4-5')).toMatchObject({ encoding: 'o200k_base', exact: false, family: 'claude', imageFormula: 'anthropic' });
    expect(tokenizerFor('google:gemini-2.5-pro')).toMatchObject({ exact: false, family: 'gemini', imageFormula: 'google' });
    expect(tokenizerFor('ollama:llama3.1:8b')).toMatchObject({ exact: false, family: 'local', model: 'llama3.1:8b' });
    expect(tokenizerFor('compat:qwen2.5-coder-32b')).toMatchObject({ exact: false, family: 'local' });
  });

  it('counts an OpenAI model behind a compatible endpoint exactly', () => {
    expect(tokenizerFor('compat:openai/gpt-4o')).toMatchObject({ provider: 'compat', encoding: 'o200k_base', exact: true });
  });

  it('guesses the provider of a bare model name, and counts one nobody claims like a compatible server’s', () => {
    expect(tokenizerFor('claude-opus-4-5')).toMatchObject({ provider: 'anthropic', model: 'claude-opus-4-5', family: 'claude' });
    expect(tokenizerFor('gpt-4o')).toMatchObject({ provider: 'openai', model: 'gpt-4o', exact: true });
    expect(tokenizerFor('mistral-large')).toMatchObject({ provider: 'compat', model: 'mistral-large', exact: false, family: 'local' });
    // Sessions imported from other apps name providers this app does not have; a router's OpenAI name still counts exactly.
    expect(tokenizerFor('openrouter:openai/gpt-4o')).toMatchObject({ provider: 'compat', model: 'openrouter:openai/gpt-4o', exact: false, family: 'local' });
    expect(tokenizerFor('openai/gpt-4o')).toMatchObject({ provider: 'compat', encoding: 'o200k_base', exact: true });
  });
});

/**
 * One row per provider: a model id of its own, and the tokenizer docs/providers.md
 * documents for it. A provider added to the descriptor table without a row here fails.
 */
const DOCUMENTED: Record<ProviderId, { id: string; counting: Omit<TokenizerInfo, 'provider' | 'model'> }[]> = {
  openai: [
    { id: 'openai:gpt-4.1-mini', counting: { encoding: 'o200k_base', exact: true, family: 'gpt-o200k', imageFormula: 'openai' } },
    { id: 'openai:gpt-3.5-turbo-0125', counting: { encoding: 'cl100k_base', exact: true, family: 'gpt-cl100k', imageFormula: 'openai' } },
    { id: 'openai:ft:gpt-4o-mini:acme::abc123', counting: { encoding: 'o200k_base', exact: false, family: 'gpt-o200k', imageFormula: 'openai' } },
  ],
  anthropic: [{ id: 'anthropic:claude-3-5-haiku-latest', counting: { encoding: 'o200k_base', exact: false, family: 'claude', imageFormula: 'anthropic' } }],
  google: [{ id: 'google:gemini-2.0-flash', counting: { encoding: 'o200k_base', exact: false, family: 'gemini', imageFormula: 'google' } }],
  compat: [
    { id: 'compat:openai/gpt-4.1', counting: { encoding: 'o200k_base', exact: true, family: 'gpt-o200k', imageFormula: 'openai' } },
    { id: 'compat:gpt-35-turbo', counting: { encoding: 'cl100k_base', exact: true, family: 'gpt-cl100k', imageFormula: 'openai' } },
    { id: 'compat:meta-llama/llama-3.3-70b-instruct', counting: { encoding: 'o200k_base', exact: false, family: 'local', imageFormula: 'openai' } },
  ],
  ollama: [
    { id: 'ollama:qwen3:32b', counting: { encoding: 'o200k_base', exact: false, family: 'local', imageFormula: 'openai' } },
    // Ollama's gpt-oss is a local build with its own chat template: estimated, never counted as OpenAI's.
    { id: 'ollama:gpt-oss:20b', counting: { encoding: 'o200k_base', exact: false, family: 'local', imageFormula: 'openai' } },
  ],
};

describe('every provider: its ids round-trip and pick the documented tokenizer', () => {
  it('covers every provider in the descriptor table', () => {
    expect(Object.keys(DOCUMENTED).sort()).toEqual([...PROVIDER_IDS].sort());
  });

  for (const provider of PROVIDER_IDS) {
    for (const { id, counting } of DOCUMENTED[provider]) {
      it(`${id}`, () => {
        const ref = parseModelId(id);
        expect(ref?.provider).toBe(provider);
        expect(formatModelId(ref!)).toBe(id);
        expect(tokenizerFor(id)).toEqual({ provider, model: ref!.model, ...counting });
      });
    }
  }
});
