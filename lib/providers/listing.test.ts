import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServerConfig } from './env';
import { createModelsCache, listModels, type ModelsResponse } from './listing';
import { compatWindow, OLLAMA_DEFAULT_NUM_CTX } from './listProtocols';
import { MAX_MODEL_ID_LENGTH } from './modelId';
import { chatRequestSchema } from './requests';

describe('compatWindow: the window fields OpenAI-compatible servers report', () => {
  it('OpenRouter: the serving provider’s limit wins over the model’s', () => {
    // Shape quoted in https://github.com/earendil-works/pi/issues/6378
    expect(compatWindow({ id: 'qwen/qwen3-coder:free', context_length: 1048576, top_provider: { context_length: 262000, max_completion_tokens: 262000 } })).toEqual({
      contextWindow: 262000,
      maxOutputTokens: 262000,
    });
  });
  it('vLLM, Groq, LM Studio, llama.cpp', () => {
    expect(compatWindow({ id: 'Qwen/Qwen2.5-7B-Instruct', object: 'model', owned_by: 'vllm', max_model_len: 32768 }).contextWindow).toBe(32768);
    expect(compatWindow({ id: 'llama-3.3-70b-versatile', object: 'model', context_window: 131072, max_completion_tokens: 32768 })).toEqual({ contextWindow: 131072, maxOutputTokens: 32768 });
    expect(compatWindow({ id: 'qwen2.5-7b-instruct', max_context_length: 32768 }).contextWindow).toBe(32768);
    expect(compatWindow({ id: 'model.gguf', meta: { n_ctx_train: 131072, n_vocab: 128256 } }).contextWindow).toBe(131072);
    expect(compatWindow({ id: 'plain' })).toEqual({ contextWindow: undefined, maxOutputTokens: undefined });
  });
});

describe('Ollama listing against a fake Ollama server', () => {
  let server: Server;
  let root: string;
  let shows = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/api/tags') {
          res.end(JSON.stringify({ models: [{ name: 'llama3.1:8b', model: 'llama3.1:8b', size: 4920753328 }, { name: 'qwen3:32b', model: 'qwen3:32b' }, { name: 'tiny:latest', model: 'tiny:latest' }] }));
        } else if (req.url === '/api/show') {
          shows++;
          const { model } = JSON.parse(raw) as { model: string };
          if (model === 'llama3.1:8b') res.end(JSON.stringify({ parameters: 'stop "<|eot_id|>"\nnum_ctx 16384', model_info: { 'general.architecture': 'llama', 'llama.context_length': 131072 } }));
          else if (model === 'qwen3:32b') res.end(JSON.stringify({ parameters: 'temperature 0.6', model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 } }));
          else res.end(JSON.stringify({ model_info: { 'tiny.context_length': 2048 } }));
        } else {
          res.statusCode = 404;
          res.end('{}');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('uses num_ctx where the model sets it, else the served default (never more than trained)', async () => {
    const config = readServerConfig({ OLLAMA_BASE_URL: root, MODEL_CONTEXT_WINDOWS: 'ollama:tiny:latest=1000' });
    const res = await listModels(config, (i, init) => globalThis.fetch(i, init));
    expect(res.providers.find((p) => p.id === 'ollama')).toEqual({ id: 'ollama', label: 'Ollama', configured: true, reachable: true, state: 'connected' });
    expect(res.models).toEqual([
      { id: 'ollama:llama3.1:8b', provider: 'ollama', name: 'llama3.1:8b', contextWindow: 16384, contextWindowSource: 'provider' },
      { id: 'ollama:qwen3:32b', provider: 'ollama', name: 'qwen3:32b', contextWindow: OLLAMA_DEFAULT_NUM_CTX, contextWindowSource: 'fallback' },
      { id: 'ollama:tiny:latest', provider: 'ollama', name: 'tiny:latest', contextWindow: 1000, contextWindowSource: 'override' },
    ]);
    expect(res.defaultModel).toBe('ollama:llama3.1:8b');
    expect(shows).toBe(3);
  });

  it('the cache answers repeated calls without asking again, per configuration', async () => {
    const cache = createModelsCache({ ttlMs: 60_000 });
    const config = readServerConfig({ OLLAMA_BASE_URL: root });
    let loads = 0;
    const load = async (): Promise<ModelsResponse> => {
      loads++;
      return listModels(config, (i, init) => globalThis.fetch(i, init));
    };
    const a = await cache.get(config, load);
    const b = await cache.get(config, load);
    expect(b).toBe(a);
    expect(loads).toBe(1);
    await cache.get(readServerConfig({ OLLAMA_BASE_URL: root, DEFAULT_MODEL: 'ollama:qwen3:32b' }), load);
    expect(loads).toBe(2);
    await cache.get(config, load, true);
    expect(loads).toBe(3);
  });
});

describe('model ids the routes could not accept', () => {
  it('are left out of the listing, with a warning, by the same limit the chat request applies', async () => {
    const prefix = 'compat:';
    const longest = 'm'.repeat(MAX_MODEL_ID_LENGTH - prefix.length);
    const tooLong = `${longest}x`;
    const served = async (input: RequestInfo | URL) => {
      expect(String(input)).toBe('http://127.0.0.1:4010/v1/models');
      return Response.json({ object: 'list', data: [{ id: 'short' }, { id: longest }, { id: tooLong }] });
    };
    const res = await listModels(readServerConfig({ OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:4010/v1', OPENAI_COMPATIBLE_NAME: 'Gateway', OLLAMA_BASE_URL: 'off' }), served);
    expect(res.models.map((m) => m.name)).toEqual([longest, 'short']);
    expect(res.warnings).toEqual([`Gateway lists 1 model with an id longer than ${MAX_MODEL_ID_LENGTH} characters; left out, the chat routes accept no longer ids.`]);
    // Every listed id is one /api/chat takes; the one left out is one it refuses.
    const request = (model: string) => chatRequestSchema.safeParse({ model, context: [{ kind: 'message', entryId: 'u', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } }] });
    for (const m of res.models) expect(request(m.id).success).toBe(true);
    expect(request(`${prefix}${tooLong}`).success).toBe(false);
  });
});
