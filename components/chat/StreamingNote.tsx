/** The "still writing" dots under a reply that is streaming, with words for screen readers. */
export function StreamingNote() {
  return (
    <p className="streaming-note">
      <span className="typing-dots" aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
      <span className="sr-only">Streaming…</span>
    </p>
  );
}
