/**
 * gopkg.in/yaml.v2 v2.4.0's reader and scanner (readerc.go, scannerc.go: a port of libyaml), transcribed so that
 * syntax errors carry go-yaml's exact problem texts and marks. sigs.k8s.io/yaml surfaces them verbatim
 * (`error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'`), and Knative passes
 * them through for config-domain, config-certmanager and config-deployment's runtime-class-name.
 *
 * Positions count characters (code points) as go-yaml's marks do; lines and columns are 0-based. go-yaml's
 * quirks are kept on purpose (is_bom reads the buffer start; leaving a flow level forgets the enclosing
 * level's simple key), since they decide which error a malformed value reports.
 */

export interface Mark {
  index: number;
  line: number;
  column: number;
}

export const enum Tok {
  None,
  StreamStart,
  StreamEnd,
  VersionDirective,
  TagDirective,
  DocumentStart,
  DocumentEnd,
  BlockSequenceStart,
  BlockMappingStart,
  BlockEnd,
  FlowSequenceStart,
  FlowSequenceEnd,
  FlowMappingStart,
  FlowMappingEnd,
  BlockEntry,
  FlowEntry,
  Key,
  Value,
  Alias,
  Anchor,
  Tag,
  Scalar,
}

export const enum ScalarStyle {
  Any,
  Plain,
  SingleQuoted,
  DoubleQuoted,
  Literal,
  Folded,
}

export interface Token {
  type: Tok;
  start: Mark;
  end: Mark;
  /** Scalar text, anchor/alias name, tag handle, or %TAG handle. */
  value: string;
  /** Tag suffix. */
  suffix: string;
  /** %TAG prefix. */
  prefix: string;
  style: ScalarStyle;
  major: number;
  minor: number;
}

export const enum ErrorKind {
  None,
  Reader,
  Scanner,
  Parser,
}

interface SimpleKey {
  possible: boolean;
  required: boolean;
  tokenNumber: number;
  mark: Mark;
}

/** go-yaml reads its input in 512-byte chunks and validates each chunk as it decodes it. */
const RAW_CHUNK = 512;
const MAX_FLOW_LEVEL = 10000;
const MAX_INDENTS = 10000;
const MAX_VERSION_NUMBER_LENGTH = 2;

const NUL = 0;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const BOM = 0xfeff;

function copyMark(m: Mark): Mark {
  return { index: m.index, line: m.line, column: m.column };
}

function utf8Width(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/** The characters yaml_parser_update_buffer accepts (YAML's printable set plus TAB, LF, CR). */
function allowedChar(c: number): boolean {
  return (
    c === TAB ||
    c === LF ||
    c === CR ||
    (c >= 0x20 && c <= 0x7e) ||
    c === 0x85 ||
    (c >= 0xa0 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd) ||
    (c >= 0x10000 && c <= 0x10ffff)
  );
}

function isAlphaChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d;
}

function isDigitChar(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHexChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function hexValue(c: number): number {
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return c - 0x30;
}

function isBreakChar(c: number): boolean {
  return c === CR || c === LF || c === 0x85 || c === 0x2028 || c === 0x2029;
}

function isBlankChar(c: number): boolean {
  return c === SPACE || c === TAB;
}

/** URI characters a tag may contain (besides %-escapes, handled separately). */
const URI_CHARS = new Set(";/?:@&=+$,.!~*'()[]%".split("").map((ch) => ch.charCodeAt(0)));

/** Characters that cannot start a plain scalar (yaml_parser_fetch_next_token). */
const INDICATORS = new Set("-?:,[]{}#&*!|>'\"%@`".split("").map((ch) => ch.charCodeAt(0)));

function newToken(type: Tok, start: Mark, end: Mark): Token {
  return { type, start, end, value: "", suffix: "", prefix: "", style: ScalarStyle.Any, major: 0, minor: 0 };
}

/** A string from code points, in slices (a spread of a long array would overflow the call stack). */
function codePointsToString(cps: readonly number[]): string {
  let out = "";
  for (let i = 0; i < cps.length; i += 4096) out += String.fromCodePoint(...cps.slice(i, i + 4096));
  return out;
}

/** UTF-8 decoding of the bytes produced by %-escapes in a tag. */
function bytesToString(bytes: readonly number[]): string {
  return Buffer.from(bytes).toString("utf8");
}

export class Scanner {
  // ---- reader state
  private readonly chars: number[];
  /** Byte offset (UTF-8) just after each character, for the chunked reader. */
  private readonly byteEnds: number[];
  private readonly totalBytes: number;
  /** Characters decoded (validated) so far. */
  private available = 0;
  /** Where go-yaml's decoded buffer starts: it is compacted to the read position on every refill. */
  private bufferStart = 0;
  private eof = false;

  // ---- error state (shared with the parser)
  error: ErrorKind = ErrorKind.None;
  problem = "";
  problemMark: Mark = { index: 0, line: 0, column: 0 };
  context = "";
  contextMark: Mark = { index: 0, line: 0, column: 0 };

  // ---- scanner state
  private pos = 0;
  private mark: Mark = { index: 0, line: 0, column: 0 };
  private streamStartProduced = false;
  streamEndProduced = false;
  private flowLevel = 0;
  private tokens: Token[] = [];
  private tokensHead = 0;
  tokensParsed = 0;
  tokenAvailable = false;
  private indent = 0;
  private indents: number[] = [];
  private simpleKeyAllowed = false;
  private simpleKeys: SimpleKey[] = [];
  /** Token number → index in simpleKeys of the potential simple key starting at that token. */
  private readonly simpleKeysByToken = new Map<number, number>();

  constructor(input: string) {
    const chars: number[] = [];
    const byteEnds: number[] = [];
    let bytes = 0;
    let first = true;
    for (const ch of input) {
      let cp = ch.codePointAt(0) as number;
      // A lone surrogate cannot reach Go: its JSON decoder turns it into U+FFFD.
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
      bytes += utf8Width(cp);
      // yaml_parser_determine_encoding drops a leading UTF-8 BOM.
      if (first && cp === BOM) {
        first = false;
        continue;
      }
      first = false;
      chars.push(cp);
      byteEnds.push(bytes);
    }
    this.chars = chars;
    this.byteEnds = byteEnds;
    this.totalBytes = bytes;
  }

  // ---------------------------------------------------------------------------------------------
  // Reader

  private setReaderError(problem: string): false {
    this.error = ErrorKind.Reader;
    this.problem = problem;
    return false;
  }

  /** yaml_parser_update_buffer: decode whole raw chunks until `length` characters are ahead of `pos`. */
  private updateBuffer(length: number): boolean {
    while (this.available - this.pos < length && !this.eof) {
      const startByte = this.available === 0 ? 0 : (this.byteEnds[this.available - 1] as number);
      const endByte = Math.min(this.totalBytes, startByte + RAW_CHUNK);
      if (this.available === this.chars.length) {
        this.eof = true;
        break;
      }
      let i = this.available;
      while (i < this.chars.length && (this.byteEnds[i] as number) <= endByte) {
        if (!allowedChar(this.chars[i] as number)) {
          this.available = i;
          return this.setReaderError("control characters are not allowed");
        }
        i++;
      }
      this.available = i;
      if (i === this.chars.length) this.eof = true;
    }
    return true;
  }

  private cache(length: number): boolean {
    if (this.available - this.pos >= length) return true;
    this.bufferStart = this.pos;
    return this.updateBuffer(length);
  }

  /** go-yaml's is_bom looks at the start of its buffer, not at the read position. */
  private bufferStartsWithBom(): boolean {
    return this.bufferStart < this.available && this.chars[this.bufferStart] === BOM;
  }

  /** The character `offset` places ahead, NUL past the end (go-yaml pads its buffer with zeros). */
  private at(offset = 0): number {
    const i = this.pos + offset;
    return i < this.available ? (this.chars[i] as number) : NUL;
  }

  private isZ(offset = 0): boolean {
    return this.at(offset) === NUL;
  }

  private isBlank(offset = 0): boolean {
    return isBlankChar(this.at(offset));
  }

  private isBreak(offset = 0): boolean {
    return isBreakChar(this.at(offset));
  }

  private isBreakZ(offset = 0): boolean {
    const c = this.at(offset);
    return isBreakChar(c) || c === NUL;
  }

  private isBlankZ(offset = 0): boolean {
    const c = this.at(offset);
    return isBlankChar(c) || isBreakChar(c) || c === NUL;
  }

  private isCrlf(): boolean {
    return this.at() === CR && this.at(1) === LF;
  }

  private skip(): void {
    this.mark.index++;
    this.mark.column++;
    this.pos++;
  }

  private skipLine(): void {
    if (this.isCrlf()) {
      this.mark.index += 2;
      this.mark.column = 0;
      this.mark.line++;
      this.pos += 2;
    } else if (this.isBreak()) {
      this.mark.index++;
      this.mark.column = 0;
      this.mark.line++;
      this.pos++;
    }
  }

  private read(s: number[]): void {
    s.push(this.at());
    this.pos++;
    this.mark.index++;
    this.mark.column++;
  }

  /** read_line: a line break, normalised to LF (LS/PS kept). */
  private readLine(s: number[]): void {
    const c = this.at();
    if (c === CR && this.at(1) === LF) {
      s.push(LF);
      this.pos += 2;
      this.mark.index++;
    } else if (c === CR || c === LF || c === 0x85) {
      s.push(LF);
      this.pos++;
    } else if (c === 0x2028 || c === 0x2029) {
      s.push(c);
      this.pos++;
    } else {
      return;
    }
    this.mark.index++;
    this.mark.column = 0;
    this.mark.line++;
  }

  // ---------------------------------------------------------------------------------------------
  // Token queue

  peekToken(): Token | undefined {
    if (this.tokenAvailable || this.fetchMoreTokens()) return this.tokens[this.tokensHead];
    return undefined;
  }

  skipToken(): void {
    this.tokenAvailable = false;
    this.tokensParsed++;
    this.streamEndProduced = (this.tokens[this.tokensHead] as Token).type === Tok.StreamEnd;
    this.tokensHead++;
  }

  private insertToken(at: number, token: Token): void {
    if (this.tokensHead > 0 && this.tokensHead === this.tokens.length) {
      this.tokens = [];
      this.tokensHead = 0;
    }
    if (at < 0) this.tokens.push(token);
    else this.tokens.splice(this.tokensHead + at, 0, token);
  }

  private setScannerError(context: string, contextMark: Mark, problem: string): false {
    this.error = ErrorKind.Scanner;
    this.context = context;
    this.contextMark = copyMark(contextMark);
    this.problem = problem;
    this.problemMark = copyMark(this.mark);
    return false;
  }

  private setTagError(directive: boolean, contextMark: Mark, problem: string): false {
    return this.setScannerError(directive ? "while parsing a %TAG directive" : "while parsing a tag", contextMark, problem);
  }

  private fetchMoreTokens(): boolean {
    for (;;) {
      // While a potential simple key may still occupy the head position, the queue is not settled.
      if (this.tokensHead !== this.tokens.length) {
        const idx = this.simpleKeysByToken.get(this.tokensParsed);
        if (idx === undefined) break;
        const valid = this.simpleKeyIsValid(this.simpleKeys[idx] as SimpleKey);
        if (valid === undefined) return false;
        if (!valid) break;
      }
      if (!this.fetchNextToken()) return false;
    }
    this.tokenAvailable = true;
    return true;
  }

  private fetchNextToken(): boolean {
    if (!this.cache(1)) return false;
    if (!this.streamStartProduced) return this.fetchStreamStart();
    if (!this.scanToNextToken()) return false;
    if (!this.unrollIndent(this.mark.column)) return false;
    if (!this.cache(4)) return false;

    if (this.isZ()) return this.fetchStreamEnd();
    const c = this.at();
    if (this.mark.column === 0 && c === 0x25 /* % */) return this.fetchDirective();
    if (this.mark.column === 0 && c === 0x2d && this.at(1) === 0x2d && this.at(2) === 0x2d && this.isBlankZ(3)) {
      return this.fetchDocumentIndicator(Tok.DocumentStart);
    }
    if (this.mark.column === 0 && c === 0x2e && this.at(1) === 0x2e && this.at(2) === 0x2e && this.isBlankZ(3)) {
      return this.fetchDocumentIndicator(Tok.DocumentEnd);
    }
    if (c === 0x5b /* [ */) return this.fetchFlowCollectionStart(Tok.FlowSequenceStart);
    if (c === 0x7b /* { */) return this.fetchFlowCollectionStart(Tok.FlowMappingStart);
    if (c === 0x5d /* ] */) return this.fetchFlowCollectionEnd(Tok.FlowSequenceEnd);
    if (c === 0x7d /* } */) return this.fetchFlowCollectionEnd(Tok.FlowMappingEnd);
    if (c === 0x2c /* , */) return this.fetchFlowEntry();
    if (c === 0x2d /* - */ && this.isBlankZ(1)) return this.fetchBlockEntry();
    if (c === 0x3f /* ? */ && (this.flowLevel > 0 || this.isBlankZ(1))) return this.fetchKey();
    if (c === 0x3a /* : */ && (this.flowLevel > 0 || this.isBlankZ(1))) return this.fetchValue();
    if (c === 0x2a /* * */) return this.fetchAnchor(Tok.Alias);
    if (c === 0x26 /* & */) return this.fetchAnchor(Tok.Anchor);
    if (c === 0x21 /* ! */) return this.fetchTag();
    if (c === 0x7c /* | */ && this.flowLevel === 0) return this.fetchBlockScalar(true);
    if (c === 0x3e /* > */ && this.flowLevel === 0) return this.fetchBlockScalar(false);
    if (c === 0x27 /* ' */) return this.fetchFlowScalar(true);
    if (c === 0x22 /* " */) return this.fetchFlowScalar(false);

    if (
      !(this.isBlankZ() || INDICATORS.has(c)) ||
      (c === 0x2d && !this.isBlank(1)) ||
      (this.flowLevel === 0 && (c === 0x3f || c === 0x3a) && !this.isBlankZ(1))
    ) {
      return this.fetchPlainScalar();
    }
    return this.setScannerError("while scanning for the next token", this.mark, "found character that cannot start any token");
  }

  /** yaml_simple_key_is_valid: whether the key still can be one; undefined after a scanner error. */
  private simpleKeyIsValid(key: SimpleKey): boolean | undefined {
    if (!key.possible) return false;
    // A simple key is limited to a single line and 1024 characters.
    if (key.mark.line < this.mark.line || key.mark.index + 1024 < this.mark.index) {
      if (key.required) {
        this.setScannerError("while scanning a simple key", key.mark, "could not find expected ':'");
        return undefined;
      }
      key.possible = false;
      return false;
    }
    return true;
  }

  private saveSimpleKey(): boolean {
    const required = this.flowLevel === 0 && this.indent === this.mark.column;
    if (this.simpleKeyAllowed) {
      const key: SimpleKey = {
        possible: true,
        required,
        tokenNumber: this.tokensParsed + (this.tokens.length - this.tokensHead),
        mark: copyMark(this.mark),
      };
      if (!this.removeSimpleKey()) return false;
      this.simpleKeys[this.simpleKeys.length - 1] = key;
      this.simpleKeysByToken.set(key.tokenNumber, this.simpleKeys.length - 1);
    }
    return true;
  }

  private removeSimpleKey(): boolean {
    const key = this.simpleKeys[this.simpleKeys.length - 1] as SimpleKey;
    if (key.possible) {
      if (key.required) return this.setScannerError("while scanning a simple key", key.mark, "could not find expected ':'");
      key.possible = false;
      this.simpleKeysByToken.delete(key.tokenNumber);
    }
    return true;
  }

  private increaseFlowLevel(): boolean {
    this.simpleKeys.push({
      possible: false,
      required: false,
      tokenNumber: this.tokensParsed + (this.tokens.length - this.tokensHead),
      mark: copyMark(this.mark),
    });
    this.flowLevel++;
    if (this.flowLevel > MAX_FLOW_LEVEL) {
      return this.setScannerError(
        "while increasing flow level",
        (this.simpleKeys[this.simpleKeys.length - 1] as SimpleKey).mark,
        `exceeded max depth of ${MAX_FLOW_LEVEL}`,
      );
    }
    return true;
  }

  private decreaseFlowLevel(): boolean {
    if (this.flowLevel > 0) {
      this.flowLevel--;
      // go-yaml drops the entry for the level's token number whether or not its key was possible, which
      // also forgets the enclosing level's key saved for the same '[' or '{' token.
      const last = this.simpleKeys.pop() as SimpleKey;
      this.simpleKeysByToken.delete(last.tokenNumber);
    }
    return true;
  }

  private rollIndent(column: number, number: number, type: Tok, mark: Mark): boolean {
    if (this.flowLevel > 0) return true;
    if (this.indent < column) {
      this.indents.push(this.indent);
      this.indent = column;
      if (this.indents.length > MAX_INDENTS) {
        return this.setScannerError(
          "while increasing indent level",
          (this.simpleKeys[this.simpleKeys.length - 1] as SimpleKey).mark,
          `exceeded max depth of ${MAX_INDENTS}`,
        );
      }
      const token = newToken(type, copyMark(mark), copyMark(mark));
      this.insertToken(number > -1 ? number - this.tokensParsed : -1, token);
    }
    return true;
  }

  private unrollIndent(column: number): boolean {
    if (this.flowLevel > 0) return true;
    while (this.indent > column) {
      this.insertToken(-1, newToken(Tok.BlockEnd, copyMark(this.mark), copyMark(this.mark)));
      this.indent = this.indents.pop() as number;
    }
    return true;
  }

  private fetchStreamStart(): boolean {
    this.indent = -1;
    this.simpleKeys.push({ possible: false, required: false, tokenNumber: 0, mark: { index: 0, line: 0, column: 0 } });
    this.simpleKeyAllowed = true;
    this.streamStartProduced = true;
    this.insertToken(-1, newToken(Tok.StreamStart, copyMark(this.mark), copyMark(this.mark)));
    return true;
  }

  private fetchStreamEnd(): boolean {
    // Force new line.
    if (this.mark.column !== 0) {
      this.mark.column = 0;
      this.mark.line++;
    }
    if (!this.unrollIndent(-1)) return false;
    if (!this.removeSimpleKey()) return false;
    this.simpleKeyAllowed = false;
    this.insertToken(-1, newToken(Tok.StreamEnd, copyMark(this.mark), copyMark(this.mark)));
    return true;
  }

  private fetchDirective(): boolean {
    if (!this.unrollIndent(-1)) return false;
    if (!this.removeSimpleKey()) return false;
    this.simpleKeyAllowed = false;
    const token = this.scanDirective();
    if (token === undefined) return false;
    this.insertToken(-1, token);
    return true;
  }

  private fetchDocumentIndicator(type: Tok): boolean {
    if (!this.unrollIndent(-1)) return false;
    if (!this.removeSimpleKey()) return false;
    this.simpleKeyAllowed = false;
    const start = copyMark(this.mark);
    this.skip();
    this.skip();
    this.skip();
    this.insertToken(-1, newToken(type, start, copyMark(this.mark)));
    return true;
  }

  private fetchFlowCollectionStart(type: Tok): boolean {
    if (!this.saveSimpleKey()) return false;
    if (!this.increaseFlowLevel()) return false;
    this.simpleKeyAllowed = true;
    const start = copyMark(this.mark);
    this.skip();
    this.insertToken(-1, newToken(type, start, copyMark(this.mark)));
    return true;
  }

  private fetchFlowCollectionEnd(type: Tok): boolean {
    if (!this.removeSimpleKey()) return false;
    if (!this.decreaseFlowLevel()) return false;
    this.simpleKeyAllowed = false;
    const start = copyMark(this.mark);
    this.skip();
    this.insertToken(-1, newToken(type, start, copyMark(this.mark)));
    return true;
  }

  private fetchFlowEntry(): boolean {
    if (!this.removeSimpleKey()) return false;
    this.simpleKeyAllowed = true;
    const start = copyMark(this.mark);
    this.skip();
    this.insertToken(-1, newToken(Tok.FlowEntry, start, copyMark(this.mark)));
    return true;
  }

  private fetchBlockEntry(): boolean {
    if (this.flowLevel === 0) {
      if (!this.simpleKeyAllowed) {
        return this.setScannerError("", this.mark, "block sequence entries are not allowed in this context");
      }
      if (!this.rollIndent(this.mark.column, -1, Tok.BlockSequenceStart, this.mark)) return false;
    }
    // In the flow context the parser reports the misplaced '-', with its context.
    if (!this.removeSimpleKey()) return false;
    this.simpleKeyAllowed = true;
    const start = copyMark(this.mark);
    this.skip();
    this.insertToken(-1, newToken(Tok.BlockEntry, start, copyMark(this.mark)));
    return true;
  }

  private fetchKey(): boolean {
    if (this.flowLevel === 0) {
      if (!this.simpleKeyAllowed) return this.setScannerError("", this.mark, "mapping keys are not allowed in this context");
      if (!this.rollIndent(this.mark.column, -1, Tok.BlockMappingStart, this.mark)) return false;
    }
    if (!this.removeSimpleKey()) return false;
    this.simpleKeyAllowed = this.flowLevel === 0;
    const start = copyMark(this.mark);
    this.skip();
    this.insertToken(-1, newToken(Tok.Key, start, copyMark(this.mark)));
    return true;
  }

  private fetchValue(): boolean {
    const key = this.simpleKeys[this.simpleKeys.length - 1] as SimpleKey;
    const valid = this.simpleKeyIsValid(key);
    if (valid === undefined) return false;
    if (valid) {
      this.insertToken(key.tokenNumber - this.tokensParsed, newToken(Tok.Key, copyMark(key.mark), copyMark(key.mark)));
      if (!this.rollIndent(key.mark.column, key.tokenNumber, Tok.BlockMappingStart, key.mark)) return false;
      key.possible = false;
      this.simpleKeysByToken.delete(key.tokenNumber);
      this.simpleKeyAllowed = false;
    } else {
      if (this.flowLevel === 0) {
        if (!this.simpleKeyAllowed) return this.setScannerError("", this.mark, "mapping values are not allowed in this context");
        if (!this.rollIndent(this.mark.column, -1, Tok.BlockMappingStart, this.mark)) return false;
      }
      this.simpleKeyAllowed = this.flowLevel === 0;
    }
    const start = copyMark(this.mark);
    this.skip();
    this.insertToken(-1, newToken(Tok.Value, start, copyMark(this.mark)));
    return true;
  }

  private fetchAnchor(type: Tok): boolean {
    if (!this.saveSimpleKey()) return false;
    this.simpleKeyAllowed = false;
    const token = this.scanAnchor(type);
    if (token === undefined) return false;
    this.insertToken(-1, token);
    return true;
  }

  private fetchTag(): boolean {
    if (!this.saveSimpleKey()) return false;
    this.simpleKeyAllowed = false;
    const token = this.scanTag();
    if (token === undefined) return false;
    this.insertToken(-1, token);
    return true;
  }

  private fetchBlockScalar(literal: boolean): boolean {
    if (!this.removeSimpleKey()) return false;
    this.simpleKeyAllowed = true;
    const token = this.scanBlockScalar(literal);
    if (token === undefined) return false;
    this.insertToken(-1, token);
    return true;
  }

  private fetchFlowScalar(single: boolean): boolean {
    if (!this.saveSimpleKey()) return false;
    this.simpleKeyAllowed = false;
    const token = this.scanFlowScalar(single);
    if (token === undefined) return false;
    this.insertToken(-1, token);
    return true;
  }

  private fetchPlainScalar(): boolean {
    if (!this.saveSimpleKey()) return false;
    this.simpleKeyAllowed = false;
    const token = this.scanPlainScalar();
    if (token === undefined) return false;
    this.insertToken(-1, token);
    return true;
  }

  private scanToNextToken(): boolean {
    for (;;) {
      if (!this.cache(1)) return false;
      if (this.mark.column === 0 && this.bufferStartsWithBom()) this.skip();
      if (!this.cache(1)) return false;
      // Tabs are allowed in the flow context and in the block context except where indentation is read.
      while (this.at() === SPACE || ((this.flowLevel > 0 || !this.simpleKeyAllowed) && this.at() === TAB)) {
        this.skip();
        if (!this.cache(1)) return false;
      }
      if (this.at() === 0x23 /* # */) {
        while (!this.isBreakZ()) {
          this.skip();
          if (!this.cache(1)) return false;
        }
      }
      if (this.isBreak()) {
        if (!this.cache(2)) return false;
        this.skipLine();
        if (this.flowLevel === 0) this.simpleKeyAllowed = true;
      } else {
        break;
      }
    }
    return true;
  }

  /** Blanks, then an optional comment, up to the end of the line. */
  private skipToLineEnd(): boolean {
    if (!this.cache(1)) return false;
    while (this.isBlank()) {
      this.skip();
      if (!this.cache(1)) return false;
    }
    if (this.at() === 0x23) {
      while (!this.isBreakZ()) {
        this.skip();
        if (!this.cache(1)) return false;
      }
    }
    return true;
  }

  private scanDirective(): Token | undefined {
    const start = copyMark(this.mark);
    this.skip();
    const name = this.scanDirectiveName(start);
    if (name === undefined) return undefined;
    let token: Token;
    if (name === "YAML") {
      const version = this.scanVersionDirectiveValue(start);
      if (version === undefined) return undefined;
      token = newToken(Tok.VersionDirective, start, copyMark(this.mark));
      token.major = version[0];
      token.minor = version[1];
    } else if (name === "TAG") {
      const tag = this.scanTagDirectiveValue(start);
      if (tag === undefined) return undefined;
      token = newToken(Tok.TagDirective, start, copyMark(this.mark));
      token.value = tag[0];
      token.prefix = tag[1];
    } else {
      this.setScannerError("while scanning a directive", start, "found unknown directive name");
      return undefined;
    }
    if (!this.skipToLineEnd()) return undefined;
    if (!this.isBreakZ()) {
      this.setScannerError("while scanning a directive", start, "did not find expected comment or line break");
      return undefined;
    }
    if (this.isBreak()) {
      if (!this.cache(2)) return undefined;
      this.skipLine();
    }
    return token;
  }

  private scanDirectiveName(start: Mark): string | undefined {
    if (!this.cache(1)) return undefined;
    const s: number[] = [];
    while (isAlphaChar(this.at())) {
      this.read(s);
      if (!this.cache(1)) return undefined;
    }
    if (s.length === 0) {
      this.setScannerError("while scanning a directive", start, "could not find expected directive name");
      return undefined;
    }
    if (!this.isBlankZ()) {
      this.setScannerError("while scanning a directive", start, "found unexpected non-alphabetical character");
      return undefined;
    }
    return codePointsToString(s);
  }

  private scanVersionDirectiveValue(start: Mark): [number, number] | undefined {
    if (!this.cache(1)) return undefined;
    while (this.isBlank()) {
      this.skip();
      if (!this.cache(1)) return undefined;
    }
    const major = this.scanVersionDirectiveNumber(start);
    if (major === undefined) return undefined;
    if (this.at() !== 0x2e) {
      this.setScannerError("while scanning a %YAML directive", start, "did not find expected digit or '.' character");
      return undefined;
    }
    this.skip();
    const minor = this.scanVersionDirectiveNumber(start);
    if (minor === undefined) return undefined;
    return [major, minor];
  }

  private scanVersionDirectiveNumber(start: Mark): number | undefined {
    if (!this.cache(1)) return undefined;
    let value = 0;
    let length = 0;
    while (isDigitChar(this.at())) {
      length++;
      if (length > MAX_VERSION_NUMBER_LENGTH) {
        this.setScannerError("while scanning a %YAML directive", start, "found extremely long version number");
        return undefined;
      }
      value = value * 10 + (this.at() - 0x30);
      this.skip();
      if (!this.cache(1)) return undefined;
    }
    if (length === 0) {
      this.setScannerError("while scanning a %YAML directive", start, "did not find expected version number");
      return undefined;
    }
    return value;
  }

  private scanTagDirectiveValue(start: Mark): [string, string] | undefined {
    if (!this.cache(1)) return undefined;
    while (this.isBlank()) {
      this.skip();
      if (!this.cache(1)) return undefined;
    }
    const handle = this.scanTagHandle(true, start);
    if (handle === undefined) return undefined;
    if (!this.cache(1)) return undefined;
    if (!this.isBlank()) {
      this.setScannerError("while scanning a %TAG directive", start, "did not find expected whitespace");
      return undefined;
    }
    while (this.isBlank()) {
      this.skip();
      if (!this.cache(1)) return undefined;
    }
    const prefix = this.scanTagUri(true, [], start);
    if (prefix === undefined) return undefined;
    if (!this.cache(1)) return undefined;
    if (!this.isBlankZ()) {
      this.setScannerError("while scanning a %TAG directive", start, "did not find expected whitespace or line break");
      return undefined;
    }
    return [bytesToString(handle), bytesToString(prefix)];
  }

  private scanAnchor(type: Tok): Token | undefined {
    const s: number[] = [];
    const start = copyMark(this.mark);
    this.skip();
    if (!this.cache(1)) return undefined;
    while (isAlphaChar(this.at())) {
      this.read(s);
      if (!this.cache(1)) return undefined;
    }
    const end = copyMark(this.mark);
    const c = this.at();
    if (
      s.length === 0 ||
      !(this.isBlankZ() || c === 0x3f || c === 0x3a || c === 0x2c || c === 0x5d || c === 0x7d || c === 0x25 || c === 0x40 || c === 0x60)
    ) {
      this.setScannerError(
        type === Tok.Anchor ? "while scanning an anchor" : "while scanning an alias",
        start,
        "did not find expected alphabetic or numeric character",
      );
      return undefined;
    }
    const token = newToken(type, start, end);
    token.value = codePointsToString(s);
    return token;
  }

  private scanTag(): Token | undefined {
    let handle: number[];
    let suffix: number[];
    const start = copyMark(this.mark);
    if (!this.cache(2)) return undefined;
    if (this.at(1) === 0x3c /* < */) {
      handle = [];
      this.skip();
      this.skip();
      const uri = this.scanTagUri(false, [], start);
      if (uri === undefined) return undefined;
      suffix = uri;
      if (this.at() !== 0x3e /* > */) {
        this.setScannerError("while scanning a tag", start, "did not find the expected '>'");
        return undefined;
      }
      this.skip();
    } else {
      const h = this.scanTagHandle(false, start);
      if (h === undefined) return undefined;
      if (h[0] === 0x21 && h.length > 1 && h[h.length - 1] === 0x21) {
        handle = h;
        const uri = this.scanTagUri(false, [], start);
        if (uri === undefined) return undefined;
        suffix = uri;
      } else {
        const uri = this.scanTagUri(false, h, start);
        if (uri === undefined) return undefined;
        handle = [0x21];
        suffix = uri;
        // The '!' tag alone: handle '' and suffix '!'.
        if (suffix.length === 0) {
          suffix = handle;
          handle = [];
        }
      }
    }
    if (!this.cache(1)) return undefined;
    if (!this.isBlankZ()) {
      this.setScannerError("while scanning a tag", start, "did not find expected whitespace or line break");
      return undefined;
    }
    const token = newToken(Tok.Tag, start, copyMark(this.mark));
    token.value = bytesToString(handle);
    token.suffix = bytesToString(suffix);
    return token;
  }

  /** A tag handle as bytes ('!', '!!' or '!name!'). */
  private scanTagHandle(directive: boolean, start: Mark): number[] | undefined {
    if (!this.cache(1)) return undefined;
    if (this.at() !== 0x21) {
      this.setTagError(directive, start, "did not find expected '!'");
      return undefined;
    }
    const s: number[] = [];
    this.readBytes(s);
    if (!this.cache(1)) return undefined;
    while (isAlphaChar(this.at())) {
      this.readBytes(s);
      if (!this.cache(1)) return undefined;
    }
    if (this.at() === 0x21) {
      this.readBytes(s);
    } else if (directive && !(s.length === 1 && s[0] === 0x21)) {
      this.setTagError(directive, start, "did not find expected '!'");
      return undefined;
    }
    return s;
  }

  /** read() into a byte buffer (tags are assembled from bytes because of %-escapes). */
  private readBytes(s: number[]): void {
    for (const b of Buffer.from(String.fromCodePoint(this.at()), "utf8")) s.push(b);
    this.pos++;
    this.mark.index++;
    this.mark.column++;
  }

  private scanTagUri(directive: boolean, head: readonly number[], start: Mark): number[] | undefined {
    const s: number[] = head.length > 1 ? head.slice(1) : [];
    let hasTag = head.length > 0;
    if (!this.cache(1)) return undefined;
    while (isAlphaChar(this.at()) || URI_CHARS.has(this.at())) {
      if (this.at() === 0x25) {
        if (!this.scanUriEscapes(directive, start, s)) return undefined;
      } else {
        this.readBytes(s);
      }
      if (!this.cache(1)) return undefined;
      hasTag = true;
    }
    if (!hasTag) {
      this.setTagError(directive, start, "did not find expected tag URI");
      return undefined;
    }
    return s;
  }

  private scanUriEscapes(directive: boolean, start: Mark, s: number[]): boolean {
    let w = 1024;
    while (w > 0) {
      if (!this.cache(3)) return false;
      if (!(this.at() === 0x25 && isHexChar(this.at(1)) && isHexChar(this.at(2)))) {
        return this.setTagError(directive, start, "did not find URI escaped octet");
      }
      const octet = (hexValue(this.at(1)) << 4) + hexValue(this.at(2));
      if (w === 1024) {
        w = (octet & 0x80) === 0 ? 1 : (octet & 0xe0) === 0xc0 ? 2 : (octet & 0xf0) === 0xe0 ? 3 : (octet & 0xf8) === 0xf0 ? 4 : 0;
        if (w === 0) return this.setTagError(directive, start, "found an incorrect leading UTF-8 octet");
      } else if ((octet & 0xc0) !== 0x80) {
        return this.setTagError(directive, start, "found an incorrect trailing UTF-8 octet");
      }
      s.push(octet);
      this.skip();
      this.skip();
      this.skip();
      w--;
    }
    return true;
  }

  private scanBlockScalar(literal: boolean): Token | undefined {
    const start = copyMark(this.mark);
    this.skip();
    if (!this.cache(1)) return undefined;
    let chomping = 0;
    let increment = 0;
    if (this.at() === 0x2b || this.at() === 0x2d) {
      chomping = this.at() === 0x2b ? 1 : -1;
      this.skip();
      if (!this.cache(1)) return undefined;
      if (isDigitChar(this.at())) {
        if (this.at() === 0x30) {
          this.setScannerError("while scanning a block scalar", start, "found an indentation indicator equal to 0");
          return undefined;
        }
        increment = this.at() - 0x30;
        this.skip();
      }
    } else if (isDigitChar(this.at())) {
      if (this.at() === 0x30) {
        this.setScannerError("while scanning a block scalar", start, "found an indentation indicator equal to 0");
        return undefined;
      }
      increment = this.at() - 0x30;
      this.skip();
      if (!this.cache(1)) return undefined;
      if (this.at() === 0x2b || this.at() === 0x2d) {
        chomping = this.at() === 0x2b ? 1 : -1;
        this.skip();
      }
    }
    if (!this.skipToLineEnd()) return undefined;
    if (!this.isBreakZ()) {
      this.setScannerError("while scanning a block scalar", start, "did not find expected comment or line break");
      return undefined;
    }
    if (this.isBreak()) {
      if (!this.cache(2)) return undefined;
      this.skipLine();
    }
    const state = { end: copyMark(this.mark), indent: 0 };
    if (increment > 0) state.indent = this.indent >= 0 ? this.indent + increment : increment;

    const s: number[] = [];
    let leadingBreak: number[] = [];
    let trailingBreaks: number[] = [];
    if (!this.scanBlockScalarBreaks(state, trailingBreaks, start)) return undefined;
    if (!this.cache(1)) return undefined;
    let leadingBlank = false;
    let trailingBlank = false;
    while (this.mark.column === state.indent && !this.isZ()) {
      trailingBlank = this.isBlank();
      if (!literal && !leadingBlank && !trailingBlank && leadingBreak.length > 0 && leadingBreak[0] === LF) {
        if (trailingBreaks.length === 0) s.push(SPACE);
      } else {
        s.push(...leadingBreak);
      }
      leadingBreak = [];
      s.push(...trailingBreaks);
      trailingBreaks = [];
      leadingBlank = this.isBlank();
      while (!this.isBreakZ()) {
        this.read(s);
        if (!this.cache(1)) return undefined;
      }
      if (!this.cache(2)) return undefined;
      this.readLine(leadingBreak);
      if (!this.scanBlockScalarBreaks(state, trailingBreaks, start)) return undefined;
    }
    if (chomping !== -1) s.push(...leadingBreak);
    if (chomping === 1) s.push(...trailingBreaks);

    const token = newToken(Tok.Scalar, start, state.end);
    token.value = codePointsToString(s);
    token.style = literal ? ScalarStyle.Literal : ScalarStyle.Folded;
    return token;
  }

  private scanBlockScalarBreaks(state: { end: Mark; indent: number }, breaks: number[], start: Mark): boolean {
    state.end = copyMark(this.mark);
    let maxIndent = 0;
    for (;;) {
      if (!this.cache(1)) return false;
      while ((state.indent === 0 || this.mark.column < state.indent) && this.at() === SPACE) {
        this.skip();
        if (!this.cache(1)) return false;
      }
      if (this.mark.column > maxIndent) maxIndent = this.mark.column;
      if ((state.indent === 0 || this.mark.column < state.indent) && this.at() === TAB) {
        return this.setScannerError("while scanning a block scalar", start, "found a tab character where an indentation space is expected");
      }
      if (!this.isBreak()) break;
      if (!this.cache(2)) return false;
      this.readLine(breaks);
      state.end = copyMark(this.mark);
    }
    if (state.indent === 0) {
      state.indent = maxIndent;
      if (state.indent < this.indent + 1) state.indent = this.indent + 1;
      if (state.indent < 1) state.indent = 1;
    }
    return true;
  }

  private atDocumentIndicator(): boolean {
    const c = this.at();
    return (
      this.mark.column === 0 &&
      ((c === 0x2d && this.at(1) === 0x2d && this.at(2) === 0x2d) || (c === 0x2e && this.at(1) === 0x2e && this.at(2) === 0x2e)) &&
      this.isBlankZ(3)
    );
  }

  private scanFlowScalar(single: boolean): Token | undefined {
    const start = copyMark(this.mark);
    this.skip();
    const s: number[] = [];
    let leadingBreak: number[] = [];
    let trailingBreaks: number[] = [];
    let whitespaces: number[] = [];
    for (;;) {
      if (!this.cache(4)) return undefined;
      if (this.atDocumentIndicator()) {
        this.setScannerError("while scanning a quoted scalar", start, "found unexpected document indicator");
        return undefined;
      }
      if (this.isZ()) {
        this.setScannerError("while scanning a quoted scalar", start, "found unexpected end of stream");
        return undefined;
      }
      let leadingBlanks = false;
      while (!this.isBlankZ()) {
        const c = this.at();
        if (single && c === 0x27 && this.at(1) === 0x27) {
          s.push(0x27);
          this.skip();
          this.skip();
        } else if (single && c === 0x27) {
          break;
        } else if (!single && c === 0x22) {
          break;
        } else if (!single && c === 0x5c && this.isBreak(1)) {
          if (!this.cache(3)) return undefined;
          this.skip();
          this.skipLine();
          leadingBlanks = true;
          break;
        } else if (!single && c === 0x5c) {
          let codeLength = 0;
          switch (this.at(1)) {
            case 0x30:
              s.push(0);
              break;
            case 0x61:
              s.push(0x07);
              break;
            case 0x62:
              s.push(0x08);
              break;
            case 0x74:
            case TAB:
              s.push(0x09);
              break;
            case 0x6e:
              s.push(0x0a);
              break;
            case 0x76:
              s.push(0x0b);
              break;
            case 0x66:
              s.push(0x0c);
              break;
            case 0x72:
              s.push(0x0d);
              break;
            case 0x65:
              s.push(0x1b);
              break;
            case SPACE:
              s.push(0x20);
              break;
            case 0x22:
              s.push(0x22);
              break;
            case 0x27:
              s.push(0x27);
              break;
            case 0x5c:
              s.push(0x5c);
              break;
            case 0x4e: // N
              s.push(0x85);
              break;
            case 0x5f: // _
              s.push(0xa0);
              break;
            case 0x4c: // L
              s.push(0x2028);
              break;
            case 0x50: // P
              s.push(0x2029);
              break;
            case 0x78:
              codeLength = 2;
              break;
            case 0x75:
              codeLength = 4;
              break;
            case 0x55:
              codeLength = 8;
              break;
            default:
              this.setScannerError("while parsing a quoted scalar", start, "found unknown escape character");
              return undefined;
          }
          this.skip();
          this.skip();
          if (codeLength > 0) {
            if (!this.cache(codeLength)) return undefined;
            let value = 0;
            for (let k = 0; k < codeLength; k++) {
              if (!isHexChar(this.at(k))) {
                this.setScannerError("while parsing a quoted scalar", start, "did not find expected hexdecimal number");
                return undefined;
              }
              value = value * 16 + hexValue(this.at(k));
            }
            if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) {
              this.setScannerError("while parsing a quoted scalar", start, "found invalid Unicode character escape code");
              return undefined;
            }
            s.push(value);
            for (let k = 0; k < codeLength; k++) this.skip();
          }
        } else {
          this.read(s);
        }
        if (!this.cache(2)) return undefined;
      }
      if (!this.cache(1)) return undefined;
      if (single ? this.at() === 0x27 : this.at() === 0x22) break;

      while (this.isBlank() || this.isBreak()) {
        if (this.isBlank()) {
          if (!leadingBlanks) this.read(whitespaces);
          else this.skip();
        } else {
          if (!this.cache(2)) return undefined;
          if (!leadingBlanks) {
            whitespaces = [];
            this.readLine(leadingBreak);
            leadingBlanks = true;
          } else {
            this.readLine(trailingBreaks);
          }
        }
        if (!this.cache(1)) return undefined;
      }
      if (leadingBlanks) {
        if (leadingBreak.length > 0 && leadingBreak[0] === LF) {
          if (trailingBreaks.length === 0) s.push(SPACE);
          else s.push(...trailingBreaks);
        } else {
          s.push(...leadingBreak, ...trailingBreaks);
        }
        trailingBreaks = [];
        leadingBreak = [];
      } else {
        s.push(...whitespaces);
        whitespaces = [];
      }
    }
    this.skip();
    const token = newToken(Tok.Scalar, start, copyMark(this.mark));
    token.value = codePointsToString(s);
    token.style = single ? ScalarStyle.SingleQuoted : ScalarStyle.DoubleQuoted;
    return token;
  }

  private scanPlainScalar(): Token | undefined {
    const s: number[] = [];
    let leadingBreak: number[] = [];
    let trailingBreaks: number[] = [];
    let whitespaces: number[] = [];
    let leadingBlanks = false;
    const indent = this.indent + 1;
    const start = copyMark(this.mark);
    let end = copyMark(this.mark);
    for (;;) {
      if (!this.cache(4)) return undefined;
      if (this.atDocumentIndicator()) break;
      if (this.at() === 0x23) break;
      while (!this.isBlankZ()) {
        const c = this.at();
        if (
          (c === 0x3a && this.isBlankZ(1)) ||
          (this.flowLevel > 0 && (c === 0x2c || c === 0x3f || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d))
        ) {
          break;
        }
        if (leadingBlanks || whitespaces.length > 0) {
          if (leadingBlanks) {
            if (leadingBreak[0] === LF) {
              if (trailingBreaks.length === 0) s.push(SPACE);
              else s.push(...trailingBreaks);
            } else {
              s.push(...leadingBreak, ...trailingBreaks);
            }
            trailingBreaks = [];
            leadingBreak = [];
            leadingBlanks = false;
          } else {
            s.push(...whitespaces);
            whitespaces = [];
          }
        }
        this.read(s);
        end = copyMark(this.mark);
        if (!this.cache(2)) return undefined;
      }
      if (!(this.isBlank() || this.isBreak())) break;
      if (!this.cache(1)) return undefined;
      while (this.isBlank() || this.isBreak()) {
        if (this.isBlank()) {
          if (leadingBlanks && this.mark.column < indent && this.at() === TAB) {
            this.setScannerError("while scanning a plain scalar", start, "found a tab character that violates indentation");
            return undefined;
          }
          if (!leadingBlanks) this.read(whitespaces);
          else this.skip();
        } else {
          if (!this.cache(2)) return undefined;
          if (!leadingBlanks) {
            whitespaces = [];
            this.readLine(leadingBreak);
            leadingBlanks = true;
          } else {
            this.readLine(trailingBreaks);
          }
        }
        if (!this.cache(1)) return undefined;
      }
      if (this.flowLevel === 0 && this.mark.column < indent) break;
    }
    const token = newToken(Tok.Scalar, start, end);
    token.value = codePointsToString(s);
    token.style = ScalarStyle.Plain;
    if (leadingBlanks) this.simpleKeyAllowed = true;
    return token;
  }
}
