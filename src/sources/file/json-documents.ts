/** A JSON value found in a stream of (possibly concatenated, pretty-printed) JSON documents. */
export interface JsonItem {
  text: string
  /** 1-based line where the value starts. */
  line: number
}

export interface JsonProblem {
  /** Text outside any document, a document cut off at the end, a record longer than the limit. */
  kind: 'garbage' | 'truncated' | 'too-long'
  line: number
}

/** Keys of a top-level object whose array elements are log records (API v2 `data`, v1 `logs`). */
const ITEM_ARRAYS = new Set(['data', 'logs', 'events', 'items'])

/** Where `char` next occurs in `text` from `from` on; the text's length when it does not. */
function nextOf(text: string, char: string, from: number): number {
  const at = text.indexOf(char, from)
  return at === -1 ? text.length : at
}

/**
 * Streams log records out of JSON documents without holding a whole document: the elements of a
 * top-level `data`/`logs` array, the elements of a top-level array, or a whole top-level object that
 * has no such array. Feed text with `write`, then `end`. Records come out as text, parsed one by one
 * by the caller, so one bad record never takes the rest of the page with it.
 */
export class JsonItemSplitter {
  private depth = 0
  private inString = false
  private escape = false
  private lineNo = 1
  /** Text of the value being captured, and where it started. */
  private capture: string[] | undefined
  private captureFrom = 0
  private captureLine = 0
  private captureDepth = 0
  /** The whole top-level object, kept until we know it holds no item array. */
  private topCapture = true
  private keyStart = -1
  private lastKey = ''
  private itemArrayDepth = -1
  private garbageLine = -1
  private keyParts: string[] = []
  private stringItem = false
  /** Characters captured of the value being captured; past `maxItem` it is counted, not kept. */
  private captured = 0
  private overflow = false

  /** `maxItem`: the longest record kept, in characters. */
  constructor(private readonly onItem: (item: JsonItem) => void, private readonly onProblem: (p: JsonProblem) => void, private readonly maxItem = Infinity) {}

  /** The line reached (1-based). */
  get line(): number {
    return this.lineNo
  }

  write(text: string): void {
    let from = 0
    const length = text.length
    // The next quote, backslash and newline at or after where they were last looked for (length
    // when there is none): found by the native search, each again only once passed.
    let quote = -1
    let backslash = -1
    let newline = -1
    for (let i = 0; i < length; i++) {
      const c = text.charCodeAt(i)
      if (this.inString) {
        if (this.escape) {
          this.escape = false
          if (c === 10) this.lineNo++
          continue
        }
        if (c !== 34 && c !== 92) {
          // Most of a record is the inside of its strings: run to the string's end or next escape
          // at once (nothing in between changes the state but the line; JSON strings hold no
          // newline, a broken document may).
          if (quote < i) quote = nextOf(text, '"', i)
          if (backslash < i) backslash = nextOf(text, '\\', i)
          const j = quote < backslash ? quote : backslash
          if (newline < i) newline = nextOf(text, '\n', i)
          while (newline < j) {
            this.lineNo++
            newline = nextOf(text, '\n', newline + 1)
          }
          i = j - 1
          continue
        }
        if (c === 92) this.escape = true
        else {
          this.inString = false
          if (this.stringItem) {
            this.stringItem = false
            this.emit(text, from, i + 1)
          } else if (this.keyStart !== -1) {
            this.lastKey = this.keyText(text, i)
            this.keyStart = -1
          }
        }
        continue
      }
      if (c === 10) this.lineNo++
      if (this.depth === 0) {
        if (c === 123) {
          this.startCapture(1)
          from = i
          this.topCapture = true
          this.depth = 1
        } else if (c === 91) {
          // A top-level array: its elements are the records.
          this.topCapture = false
          this.depth = 1
          this.itemArrayDepth = 1
        } else if (c > 32 && this.garbageLine !== this.lineNo) {
          this.garbageLine = this.lineNo
          this.onProblem({kind: 'garbage', line: this.lineNo})
        }
        continue
      }
      if (c === 34) {
        this.inString = true
        if (this.depth === this.itemArrayDepth && !this.capture) {
          // A string element of an item array: captured so the caller can count it as no record.
          this.startCapture(-1)
          from = i
          this.stringItem = true
        }
        // A string directly inside the top-level object may be a key; remember it to spot `data`.
        if (this.depth === 1 && this.itemArrayDepth === -1) this.keyStart = i + 1
        this.keyParts = []
      } else if (c === 123 || c === 91) {
        if (this.depth === this.itemArrayDepth && !this.capture) {
          this.startCapture(this.depth + 1)
          from = i
        }
        this.depth++
        if (c === 91 && this.depth === 2 && this.itemArrayDepth === -1 && ITEM_ARRAYS.has(this.lastKey)) {
          // The top-level object holds an item array: stop keeping the object, keep its elements.
          this.itemArrayDepth = 2
          this.capture = undefined
          this.topCapture = false
        }
      } else if (c === 125 || c === 93) {
        this.depth--
        if (this.capture && this.depth === this.captureDepth - 1 && !this.topCapture) {
          this.emit(text, from, i + 1)
        } else if (this.depth === 0) {
          if (this.topCapture && this.capture && this.itemArrayDepth === -1) this.emit(text, from, i + 1)
          this.capture = undefined
          this.itemArrayDepth = -1
          this.lastKey = ''
        } else if (this.depth < this.itemArrayDepth) {
          this.itemArrayDepth = -1
        }
      } else if (this.depth === this.itemArrayDepth && !this.capture && c > 32 && c !== 44) {
        // A scalar element in an item array: capture it too, so the caller can reject it.
        let j = i
        while (j < text.length && !/[,\]\s]/.test(text[j] ?? '')) j++
        this.onItem({text: text.slice(i, j), line: this.lineNo})
        i = j - 1
      }
    }
    if (this.capture) {
      this.captured += text.length - from
      if (this.captured > this.maxItem) {
        this.capture.length = 0
        this.overflow = true
      } else {
        this.capture.push(text.slice(from))
      }
    }
    if (this.keyStart !== -1 && this.inString) {
      this.keyParts.push(text.slice(this.keyStart))
      this.keyStart = 0
    }
  }

  end(): void {
    if (this.depth > 0) this.onProblem({kind: 'truncated', line: this.captureLine || this.lineNo})
  }

  private keyText(text: string, end: number): string {
    const s = this.keyParts.join('') + text.slice(this.keyStart, end)
    this.keyParts = []
    return s
  }

  private startCapture(depth: number): void {
    this.capture = []
    this.captured = 0
    this.overflow = false
    this.captureLine = this.lineNo
    this.captureDepth = depth
  }

  private emit(text: string, from: number, to: number): void {
    const parts = this.capture ?? []
    if (this.overflow || this.captured + to - from > this.maxItem) this.onProblem({kind: 'too-long', line: this.captureLine})
    else this.onItem({text: parts.join('') + text.slice(from, to), line: this.captureLine})
    this.capture = undefined
    this.overflow = false
  }
}
