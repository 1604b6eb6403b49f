/** The message of anything thrown, for a sentence shown to the user or a log line. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
