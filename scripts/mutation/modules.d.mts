// Types for modules.mjs, which vitest.mutation.config.ts imports.
export declare const MODULES: Record<string, { mutate: string[]; tests: string[]; isolate?: boolean }>;
export declare function mutateGlobs(name: string): string[];
export declare function testGlobs(name: string): string[];
export declare function incrementalFile(name: string): string;
export declare const INSTRUMENTED: Record<string, number>;
/** Whether a module's tests run isolated; false for an unisolated module outside its static pass. */
export declare function isolated(name: string): boolean;
