/**
 * The token API the UI may import: pure, no tokenizer tables. Exact counting
 * lives in exact.ts and runs in the worker (workers/tokensClient.ts).
 */
export * from './entryText';
export * from './estimate';
export * from './format';
export * from './mediaTokens';
export * from './imageSize';
export * from './tokenizerFor';
export * from './calibration';
export * from './cutPoint';
export * from './pathTokens';
export * from './pathIndex';
