// Run the scripted OpenAI-compatible test LLM on its own:
//   npx tsx e2e/mock-llm/cli.ts --port 4010 [--host 127.0.0.1] [--api-key KEY] [--chunk-delay 5]
// Prints its URL on the first line so scripts can wait for it.
import { startMockLlm } from './server';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const mock = await startMockLlm({
  port: Number(arg('port') ?? process.env.MOCK_LLM_PORT ?? 4010),
  host: arg('host') ?? '127.0.0.1',
  apiKey: arg('api-key'),
  chunkDelayMs: arg('chunk-delay') !== undefined ? Number(arg('chunk-delay')) : undefined,
});
console.log(mock.url);
console.log(`OpenAI-compatible base URL: ${mock.baseUrl}  (control API: ${mock.url}/__control/…)`);

const stop = () => {
  void mock.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
