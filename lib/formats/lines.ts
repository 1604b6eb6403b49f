/**
 * Turns text arriving in chunks of any size into numbered lines, so a JSONL
 * reader sees the same lines whether it got the whole file or a stream.
 * `\r\n` and `\r`-free `\n` endings are both accepted; a BOM on line 1 is dropped.
 */
export class LineSplitter {
  private pending = '';
  private lineNo = 0;
  private started = false;

  constructor(private readonly onLine: (line: string, lineNo: number) => void) {}

  push(chunk: string): void {
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    let start = 0;
    let nl = chunk.indexOf('\n');
    if (nl === -1) {
      this.pending += chunk;
      return;
    }
    // The first line may continue what the previous chunk left unfinished.
    this.emit(this.pending + chunk.slice(0, nl));
    this.pending = '';
    start = nl + 1;
    while ((nl = chunk.indexOf('\n', start)) !== -1) {
      this.emit(chunk.slice(start, nl));
      start = nl + 1;
    }
    this.pending = chunk.slice(start);
  }

  /** Emits the last line when the file does not end with a newline. */
  end(): void {
    if (this.pending.length > 0) this.emit(this.pending);
    this.pending = '';
  }

  private emit(line: string): void {
    this.lineNo++;
    const l = line.endsWith('\r') ? line.slice(0, -1) : line;
    this.onLine(l, this.lineNo);
  }
}

export function forEachLine(text: string, onLine: (line: string, lineNo: number) => void): void {
  const s = new LineSplitter(onLine);
  s.push(text);
  s.end();
}

/** UTF-8 length of a string without allocating, for progress in bytes. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      // A surrogate pair is one 4-byte character; a lone high surrogate is encoded as U+FFFD (3 bytes).
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
