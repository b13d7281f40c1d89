/**
 * Text that arrives in chunks and is cut at a delimiter (tcp-request kept open, tcp in as a stream):
 * the text after the last delimiter is kept in the pieces it came in, and only the new chunk (with
 * the end of the kept text a delimiter may straddle) is searched, so a long line costs no copy of
 * all of it at every chunk. The kept text is bounded (`maxBytes`, UTF-8): past it, `push` throws and
 * the kept text is dropped.
 */
export class DelimitedText {
  private pieces: string[] = [];
  private bytes = 0;

  constructor(
    private readonly delimiter: string,
    private readonly maxBytes: number,
  ) {}

  /** The complete parts the chunk ends (without their delimiter), in order; the rest is kept. */
  push(text: string): string[] {
    const { delimiter } = this;
    // The kept text's last characters (a delimiter may begin there): from its last pieces.
    let tail = "";
    for (let i = this.pieces.length - 1; i >= 0 && tail.length < delimiter.length - 1; i--) tail = this.pieces[i] + tail;
    tail = tail.slice(Math.max(0, tail.length - delimiter.length + 1));
    if ((tail + text).indexOf(delimiter) === -1) {
      this.pieces.push(text);
      this.bytes += Buffer.byteLength(text);
      if (this.bytes > this.maxBytes) {
        this.clear();
        throw new Error(`more than ${this.maxBytes} bytes arrived without the delimiter`);
      }
      return [];
    }
    const parts = (this.pieces.join("") + text).split(delimiter);
    const last = parts.pop()!;
    this.pieces = last === "" ? [] : [last];
    this.bytes = Buffer.byteLength(last);
    return parts;
  }

  /** The kept text's size in UTF-8 bytes. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** The kept text (after the last delimiter), and forgets it. */
  take(): string {
    const rest = this.pieces.join("");
    this.clear();
    return rest;
  }

  clear(): void {
    this.pieces = [];
    this.bytes = 0;
  }
}
