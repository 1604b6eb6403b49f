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

/**
 * UTF-8 byte count of text arriving in chunks, for progress against a file
 * size. A surrogate pair split across two chunks still counts as 4 bytes.
 */
export class Utf8Counter {
  bytes = 0;
  private pendingHigh = false;

  add(s: string): number {
    let n = 0;
    let i = 0;
    if (this.pendingHigh) {
      this.pendingHigh = false;
      const d = s.charCodeAt(0);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i = 1;
      } else n += 3;
    }
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        if (i === s.length - 1) {
          this.pendingHigh = true;
          continue;
        }
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          n += 4;
          i++;
        } else n += 3; // a lone surrogate is written as U+FFFD
      } else n += 3;
    }
    this.bytes += n;
    return this.bytes;
  }

  /** Counts a high surrogate left at the very end. */
  end(): number {
    if (this.pendingHigh) {
      this.pendingHigh = false;
      this.bytes += 3;
    }
    return this.bytes;
  }
}

export function utf8Length(s: string): number {
  const c = new Utf8Counter();
  c.add(s);
  return c.end();
}
