// comlink ships the Node adapter's types as node-adapter.d.ts, which TypeScript
// does not pair with the .mjs file we must import at runtime (Node ESM needs
// the extension). Same declaration, under the name we import.
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  export interface NodeEndpoint {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    postMessage(message: any, transfer?: any[]): void;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Node's port listener types vary by event
    on(type: string, listener: (...args: any[]) => void): unknown;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    off(type: string, listener: (...args: any[]) => void): unknown;
    start?: () => void;
  }
  export default function nodeEndpoint(nep: NodeEndpoint): Endpoint;
}
