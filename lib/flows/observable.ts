/**
 * A value that tells its subscribers when it changes: the shape React's
 * useSyncExternalStore reads, with no framework behind it.
 */
export class Observable<T> {
  private listeners = new Set<() => void>();

  constructor(private value: T) {}

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  getSnapshot = (): T => this.value;

  set(next: T): void {
    if (Object.is(next, this.value)) return;
    this.value = next;
    for (const l of this.listeners) l();
  }

  update(fn: (cur: T) => T): void {
    this.set(fn(this.value));
  }
}
