// Types of modules.mjs, for the TypeScript that imports it (vitest.mutation.config.ts).
export interface MutationModule {
  mutate: string[];
  tests: string[];
}
export const MODULES: Record<string, MutationModule>;
export function mutateGlobs(name: string): string[];
export function testGlobs(name: string): string[];
export function incrementalFile(name: string): string;
