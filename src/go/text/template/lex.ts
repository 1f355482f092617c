/**
 * The lexer of Go's text/template (text/template/parse/lex.go, Go 1.22+): trim markers, comments, newlines
 * inside actions, break/continue keywords. Items are pulled one at a time by the parser, as in Go, so a lexical
 * error is only reported if the parser gets that far. Positions are UTF-16 indexes into the input.
 */
import { goIsPrint } from "../../strconv/isprint.js";
import { goQuote } from "../../strconv/quote.js";

export type ItemType =
  | "error"
  | "bool"
  | "char"
  | "charConstant"
  | "comment"
  | "complex"
  | "assign"
  | "declare"
  | "EOF"
  | "field"
  | "identifier"
  | "leftDelim"
  | "leftParen"
  | "number"
  | "pipe"
  | "rawString"
  | "rightDelim"
  | "rightParen"
  | "space"
  | "string"
  | "text"
  | "variable"
  // Keywords (Go: item types after itemKeyword).
  | "block"
  | "break"
  | "continue"
  | "dot"
  | "define"
  | "else"
  | "end"
  | "if"
  | "nil"
  | "range"
  | "template"
  | "with";

export interface Item {
  readonly typ: ItemType;
  readonly pos: number;
  readonly val: string;
  readonly line: number;
}

const KEYWORDS: ReadonlyMap<string, ItemType> = new Map<string, ItemType>([
  [".", "dot"],
  ["block", "block"],
  ["break", "break"],
  ["continue", "continue"],
  ["define", "define"],
  ["else", "else"],
  ["end", "end"],
  ["if", "if"],
  ["range", "range"],
  ["nil", "nil"],
  ["template", "template"],
  ["with", "with"],
]);

const KEYWORD_TYPES: ReadonlySet<ItemType> = new Set(KEYWORDS.values());

/** Go's item.String(), used in "unexpected <item> in <context>" messages. */
export function itemString(i: Item): string {
  if (i.typ === "EOF") return "EOF";
  if (i.typ === "error") return i.val;
  if (KEYWORD_TYPES.has(i.typ)) return `<${i.val}>`;
  if (Buffer.byteLength(i.val, "utf8") > 10) return goQuote(Array.from(i.val).slice(0, 10).join("")) + "...";
  return goQuote(i.val);
}

const EOF = -1;
const LEFT_DELIM = "{{";
const RIGHT_DELIM = "}}";
const LEFT_COMMENT = "/*";
const RIGHT_COMMENT = "*/";
const TRIM_MARKER_LEN = 2;

// Go 1.23's unicode tables are Unicode 15.0; a \p{…} regex follows the running Node's ICU, which may know later
// characters. Every letter or digit assigned by 15.0 is printable under strconv.IsPrint's 15.0 tables, so a
// character that is not is unknown to Go's unicode.IsLetter and unicode.IsDigit as well.
const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;

function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09 || r === 0x0d || r === 0x0a;
}

export function isAlphaNumeric(r: number): boolean {
  if (r === 0x5f) return true;
  if (r < 0) return false;
  if (r < 0x80) return (r >= 0x30 && r <= 0x39) || ((r | 0x20) >= 0x61 && (r | 0x20) <= 0x7a);
  if (!goIsPrint(r)) return false;
  const ch = String.fromCodePoint(r);
  return LETTER.test(ch) || DIGIT.test(ch);
}

/** Go's `%#U`: `U+007D '}'` (the character only when printable). */
export function formatRune(r: number): string {
  const hex = r.toString(16).toUpperCase().padStart(4, "0");
  return goIsPrint(r) ? `U+${hex} '${String.fromCodePoint(r)}'` : `U+${hex}`;
}

function hasLeftTrimMarker(s: string, at: number): boolean {
  return s.length - at >= 2 && s.charCodeAt(at) === 0x2d && isSpace(s.charCodeAt(at + 1));
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return s.length - at >= 2 && isSpace(s.charCodeAt(at)) && s.charCodeAt(at + 1) === 0x2d;
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 0x0a) n++;
  return n;
}

function rightTrimLength(s: string, from: number, to: number): number {
  let i = to;
  while (i > from && isSpace(s.charCodeAt(i - 1))) i--;
  return to - i;
}

function leftTrimLength(s: string, from: number): number {
  let i = from;
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i - from;
}

type StateFn = (l: Lexer) => StateFn | null;

export class Lexer {
  private input: string;
  private pos = 0;
  private start = 0;
  private atEOF = false;
  private parenDepth = 0;
  private line = 1;
  private startLine = 1;
  private item: Item;
  private insideAction = false;
  readonly breakOK: boolean;
  readonly continueOK: boolean;

  constructor(input: string, breakOK = true, continueOK = true) {
    this.input = input;
    this.item = { typ: "EOF", pos: 0, val: "EOF", line: 1 };
    this.breakOK = breakOK;
    this.continueOK = continueOK;
  }

  nextItem(): Item {
    this.item = { typ: "EOF", pos: this.pos, val: "EOF", line: this.startLine };
    let state: StateFn | null = this.insideAction ? lexInsideAction : lexText;
    while (state !== null) state = state(this);
    return this.item;
  }

  // --- scanning primitives (Go's next / peek / backup) ---

  next(): number {
    if (this.pos >= this.input.length) {
      this.atEOF = true;
      return EOF;
    }
    const r = this.input.codePointAt(this.pos) as number;
    this.pos += r > 0xffff ? 2 : 1;
    if (r === 0x0a) this.line++;
    return r;
  }

  peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  backup(): void {
    if (!this.atEOF && this.pos > 0) {
      const lo = this.input.charCodeAt(this.pos - 1);
      const w = lo >= 0xdc00 && lo <= 0xdfff && this.pos >= 2 && this.input.charCodeAt(this.pos - 2) >= 0xd800 && this.input.charCodeAt(this.pos - 2) <= 0xdbff ? 2 : 1;
      this.pos -= w;
      if (lo === 0x0a) this.line--;
    }
  }

  private thisItem(typ: ItemType): Item {
    const i = { typ, pos: this.start, val: this.input.slice(this.start, this.pos), line: this.startLine };
    this.start = this.pos;
    this.startLine = this.line;
    return i;
  }

  emit(typ: ItemType): null {
    return this.emitItem(this.thisItem(typ));
  }

  emitItem(i: Item): null {
    this.item = i;
    return null;
  }

  ignore(): void {
    this.line += countNewlines(this.input, this.start, this.pos);
    this.start = this.pos;
    this.startLine = this.line;
  }

  accept(valid: string): boolean {
    const r = this.next();
    if (r !== EOF && valid.includes(String.fromCodePoint(r))) return true;
    this.backup();
    return false;
  }

  acceptRun(valid: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || !valid.includes(String.fromCodePoint(r))) break;
    }
    this.backup();
  }

  errorf(message: string): null {
    this.item = { typ: "error", pos: this.start, val: message, line: this.startLine };
    this.start = 0;
    this.pos = 0;
    this.input = "";
    return null;
  }

  atRightDelim(): { delim: boolean; trim: boolean } {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(RIGHT_DELIM, this.pos + TRIM_MARKER_LEN)) return { delim: true, trim: true };
    if (this.input.startsWith(RIGHT_DELIM, this.pos)) return { delim: true, trim: false };
    return { delim: false, trim: false };
  }

  atTerminator(): boolean {
    const r = this.peek();
    if (isSpace(r)) return true;
    switch (r) {
      case EOF:
      case 0x2e: // .
      case 0x2c: // ,
      case 0x7c: // |
      case 0x3a: // :
      case 0x29: // )
      case 0x28: // (
        return true;
    }
    return this.input.startsWith(RIGHT_DELIM, this.pos);
  }

  scanNumber(): boolean {
    this.accept("+-");
    let digits = "0123456789_";
    if (this.accept("0")) {
      if (this.accept("xX")) digits = "0123456789abcdefABCDEF_";
      else if (this.accept("oO")) digits = "01234567_";
      else if (this.accept("bB")) digits = "01_";
    }
    this.acceptRun(digits);
    if (this.accept(".")) this.acceptRun(digits);
    if (digits.length === 11 && this.accept("eE")) {
      this.accept("+-");
      this.acceptRun("0123456789_");
    }
    if (digits.length === 23 && this.accept("pP")) {
      this.accept("+-");
      this.acceptRun("0123456789_");
    }
    this.accept("i");
    if (isAlphaNumeric(this.peek())) {
      this.next();
      return false;
    }
    return true;
  }

  // --- accessors for the state functions ---

  get text(): string {
    return this.input;
  }
  get position(): number {
    return this.pos;
  }
  set position(p: number) {
    this.pos = p;
  }
  get startPos(): number {
    return this.start;
  }
  get depth(): number {
    return this.parenDepth;
  }
  set depth(d: number) {
    this.parenDepth = d;
  }
  set inside(v: boolean) {
    this.insideAction = v;
  }
  addLines(n: number): void {
    this.line += n;
  }
  takeItem(typ: ItemType): Item {
    return this.thisItem(typ);
  }
}

function lexText(l: Lexer): StateFn | null {
  const input = l.text;
  const x = input.indexOf(LEFT_DELIM, l.position);
  if (x >= 0) {
    if (x > l.position) {
      l.position = x;
      let trimLength = 0;
      const delimEnd = l.position + LEFT_DELIM.length;
      if (hasLeftTrimMarker(input, delimEnd)) trimLength = rightTrimLength(input, l.startPos, l.position);
      l.position -= trimLength;
      l.addLines(countNewlines(input, l.startPos, l.position));
      const i = l.takeItem("text");
      l.position += trimLength;
      l.ignore();
      if (i.val.length > 0) return l.emitItem(i);
    }
    return lexLeftDelim;
  }
  l.position = input.length;
  if (l.position > l.startPos) {
    l.addLines(countNewlines(input, l.startPos, l.position));
    return l.emit("text");
  }
  return l.emit("EOF");
}

function lexLeftDelim(l: Lexer): StateFn | null {
  l.position += LEFT_DELIM.length;
  const trimSpace = hasLeftTrimMarker(l.text, l.position);
  const afterMarker = trimSpace ? TRIM_MARKER_LEN : 0;
  if (l.text.startsWith(LEFT_COMMENT, l.position + afterMarker)) {
    l.position += afterMarker;
    l.ignore();
    return lexComment;
  }
  const i = l.takeItem("leftDelim");
  l.inside = true;
  l.position += afterMarker;
  l.ignore();
  l.depth = 0;
  return l.emitItem(i);
}

function lexComment(l: Lexer): StateFn | null {
  l.position += LEFT_COMMENT.length;
  const x = l.text.indexOf(RIGHT_COMMENT, l.position);
  if (x < 0) return l.errorf("unclosed comment");
  l.position = x + RIGHT_COMMENT.length;
  const { delim, trim } = l.atRightDelim();
  if (!delim) return l.errorf("comment ends before closing delimiter");
  l.addLines(countNewlines(l.text, l.startPos, l.position));
  l.takeItem("comment");
  if (trim) l.position += TRIM_MARKER_LEN;
  l.position += RIGHT_DELIM.length;
  if (trim) l.position += leftTrimLength(l.text, l.position);
  l.ignore();
  return lexText;
}

function lexRightDelim(l: Lexer): StateFn | null {
  const { trim } = l.atRightDelim();
  if (trim) {
    l.position += TRIM_MARKER_LEN;
    l.ignore();
  }
  l.position += RIGHT_DELIM.length;
  const i = l.takeItem("rightDelim");
  if (trim) {
    l.position += leftTrimLength(l.text, l.position);
    l.ignore();
  }
  l.inside = false;
  return l.emitItem(i);
}

function lexInsideAction(l: Lexer): StateFn | null {
  const { delim } = l.atRightDelim();
  if (delim) {
    if (l.depth === 0) return lexRightDelim;
    return l.errorf("unclosed left paren");
  }
  const r = l.next();
  if (r === EOF) return l.errorf("unclosed action");
  if (isSpace(r)) {
    l.backup(); // Put the space back in case we have " -}}".
    return lexSpace;
  }
  switch (r) {
    case 0x3d: // =
      return l.emit("assign");
    case 0x3a: // :
      if (l.next() !== 0x3d) return l.errorf("expected :=");
      return l.emit("declare");
    case 0x7c: // |
      return l.emit("pipe");
    case 0x22: // "
      return lexQuote;
    case 0x60: // `
      return lexRawQuote;
    case 0x24: // $
      return lexVariable;
    case 0x27: // '
      return lexChar;
    case 0x28: // (
      l.depth = l.depth + 1;
      return l.emit("leftParen");
    case 0x29: // )
      l.depth = l.depth - 1;
      if (l.depth < 0) return l.errorf("unexpected right paren");
      return l.emit("rightParen");
  }
  if (r === 0x2e) {
    // Special look-ahead for ".field" so we don't break backup(); '.' can also start a number.
    if (l.position < l.text.length) {
      const c = l.text.charCodeAt(l.position);
      if (c < 0x30 || c > 0x39) return lexField;
    }
    l.backup();
    return lexNumber;
  }
  if (r === 0x2b || r === 0x2d || (r >= 0x30 && r <= 0x39)) {
    l.backup();
    return lexNumber;
  }
  if (isAlphaNumeric(r)) {
    l.backup();
    return lexIdentifier;
  }
  if (r >= 0x20 && r < 0x7f) return l.emit("char");
  return l.errorf(`unrecognized character in action: ${formatRune(r)}`);
}

function lexSpace(l: Lexer): StateFn | null {
  let numSpaces = 0;
  for (;;) {
    const r = l.peek();
    if (!isSpace(r)) break;
    l.next();
    numSpaces++;
  }
  // A trim-marked right delimiter starts with a space: leave that space to it.
  if (hasRightTrimMarker(l.text, l.position - 1) && l.text.startsWith(RIGHT_DELIM, l.position - 1 + TRIM_MARKER_LEN)) {
    l.backup();
    if (numSpaces === 1) return lexRightDelim;
  }
  return l.emit("space");
}

function lexIdentifier(l: Lexer): StateFn | null {
  for (;;) {
    const r = l.next();
    if (isAlphaNumeric(r)) continue;
    l.backup();
    const word = l.text.slice(l.startPos, l.position);
    if (!l.atTerminator()) return l.errorf(`bad character ${formatRune(r)}`);
    const kw = KEYWORDS.get(word);
    if (kw !== undefined && word !== ".") {
      if ((kw === "break" && !l.breakOK) || (kw === "continue" && !l.continueOK)) return l.emit("identifier");
      return l.emit(kw);
    }
    if (word.charCodeAt(0) === 0x2e) return l.emit("field");
    if (word === "true" || word === "false") return l.emit("bool");
    return l.emit("identifier");
  }
}

function lexField(l: Lexer): StateFn | null {
  return lexFieldOrVariable(l, "field");
}

function lexVariable(l: Lexer): StateFn | null {
  if (l.atTerminator()) return l.emit("variable");
  return lexFieldOrVariable(l, "variable");
}

function lexFieldOrVariable(l: Lexer, typ: "field" | "variable"): StateFn | null {
  if (l.atTerminator()) return l.emit(typ === "variable" ? "variable" : "dot");
  let r: number;
  for (;;) {
    r = l.next();
    if (!isAlphaNumeric(r)) {
      l.backup();
      break;
    }
  }
  if (!l.atTerminator()) return l.errorf(`bad character ${formatRune(r)}`);
  return l.emit(typ);
}

function lexChar(l: Lexer): StateFn | null {
  for (;;) {
    let r = l.next();
    if (r === 0x5c) {
      r = l.next();
      if (r !== EOF && r !== 0x0a) continue;
      return l.errorf("unterminated character constant");
    }
    if (r === EOF || r === 0x0a) return l.errorf("unterminated character constant");
    if (r === 0x27) break;
  }
  return l.emit("charConstant");
}

function lexNumber(l: Lexer): StateFn | null {
  if (!l.scanNumber()) return l.errorf(`bad number syntax: ${goQuote(l.text.slice(l.startPos, l.position))}`);
  const sign = l.peek();
  if (sign === 0x2b || sign === 0x2d) {
    // Complex: 1+2i. No spaces, must end in 'i'.
    if (!l.scanNumber() || l.text.charCodeAt(l.position - 1) !== 0x69) return l.errorf(`bad number syntax: ${goQuote(l.text.slice(l.startPos, l.position))}`);
    return l.emit("complex");
  }
  return l.emit("number");
}

function lexQuote(l: Lexer): StateFn | null {
  for (;;) {
    let r = l.next();
    if (r === 0x5c) {
      r = l.next();
      if (r !== EOF && r !== 0x0a) continue;
      return l.errorf("unterminated quoted string");
    }
    if (r === EOF || r === 0x0a) return l.errorf("unterminated quoted string");
    if (r === 0x22) break;
  }
  return l.emit("string");
}

function lexRawQuote(l: Lexer): StateFn | null {
  for (;;) {
    const r = l.next();
    if (r === EOF) return l.errorf("unterminated raw quoted string");
    if (r === 0x60) break;
  }
  return l.emit("rawString");
}
