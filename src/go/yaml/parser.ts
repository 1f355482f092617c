/**
 * gopkg.in/yaml.v2's event parser (parserc.go), transcribed from libyaml's LL(1) state machine so that
 * grammar errors carry go-yaml's problem texts and marks.
 */
import { ErrorKind, ScalarStyle, Scanner, Tok, type Mark, type Token } from "./scanner.js";

export const enum Ev {
  None,
  StreamStart,
  StreamEnd,
  DocumentStart,
  DocumentEnd,
  Alias,
  Scalar,
  SequenceStart,
  SequenceEnd,
  MappingStart,
  MappingEnd,
}

/** yaml_event_type_t's String(), used in "expected %s event but got %s". */
export const EVENT_NAMES: Readonly<Record<Ev, string>> = {
  [Ev.None]: "none",
  [Ev.StreamStart]: "stream start",
  [Ev.StreamEnd]: "stream end",
  [Ev.DocumentStart]: "document start",
  [Ev.DocumentEnd]: "document end",
  [Ev.Alias]: "alias",
  [Ev.Scalar]: "scalar",
  [Ev.SequenceStart]: "sequence start",
  [Ev.SequenceEnd]: "sequence end",
  [Ev.MappingStart]: "mapping start",
  [Ev.MappingEnd]: "mapping end",
};

export interface YamlEvent {
  type: Ev;
  start: Mark;
  end: Mark;
  anchor: string | undefined;
  tag: string;
  value: string;
  /** Plain-implicit for scalars; implicit for collections. */
  implicit: boolean;
  quotedImplicit: boolean;
  style: ScalarStyle;
}

const enum State {
  StreamStart,
  ImplicitDocumentStart,
  DocumentStart,
  DocumentContent,
  DocumentEnd,
  BlockNode,
  BlockNodeOrIndentlessSequence,
  FlowNode,
  BlockSequenceFirstEntry,
  BlockSequenceEntry,
  IndentlessSequenceEntry,
  BlockMappingFirstKey,
  BlockMappingKey,
  BlockMappingValue,
  FlowSequenceFirstEntry,
  FlowSequenceEntry,
  FlowSequenceEntryMappingKey,
  FlowSequenceEntryMappingValue,
  FlowSequenceEntryMappingEnd,
  FlowMappingFirstKey,
  FlowMappingKey,
  FlowMappingValue,
  FlowMappingEmptyValue,
  End,
}

interface TagDirective {
  handle: string;
  prefix: string;
}

const DEFAULT_TAG_DIRECTIVES: readonly TagDirective[] = [
  { handle: "!", prefix: "!" },
  { handle: "!!", prefix: "tag:yaml.org,2002:" },
];

function event(type: Ev, start: Mark, end: Mark): YamlEvent {
  return { type, start, end, anchor: undefined, tag: "", value: "", implicit: false, quotedImplicit: false, style: ScalarStyle.Any };
}

export class Parser {
  readonly scanner: Scanner;
  private state: State = State.StreamStart;
  private readonly states: State[] = [];
  private readonly marks: Mark[] = [];
  private tagDirectives: TagDirective[] = [];

  constructor(input: string) {
    this.scanner = new Scanner(input);
  }

  /** yaml_parser_parse: the next event, or undefined on error (details on `scanner`). */
  parse(): YamlEvent | undefined {
    const s = this.scanner;
    if (s.streamEndProduced || s.error !== ErrorKind.None || this.state === State.End) return event(Ev.None, zeroMark(), zeroMark());
    return this.stateMachine();
  }

  private peek(): Token | undefined {
    return this.scanner.peekToken();
  }

  private skip(): void {
    this.scanner.skipToken();
  }

  private setError(problem: string, problemMark: Mark): undefined {
    const s = this.scanner;
    s.error = ErrorKind.Parser;
    s.problem = problem;
    s.problemMark = problemMark;
    return undefined;
  }

  private setErrorContext(context: string, contextMark: Mark, problem: string, problemMark: Mark): undefined {
    const s = this.scanner;
    s.error = ErrorKind.Parser;
    s.context = context;
    s.contextMark = contextMark;
    s.problem = problem;
    s.problemMark = problemMark;
    return undefined;
  }

  private popState(): void {
    this.state = this.states.pop() as State;
  }

  private stateMachine(): YamlEvent | undefined {
    switch (this.state) {
      case State.StreamStart:
        return this.parseStreamStart();
      case State.ImplicitDocumentStart:
        return this.parseDocumentStart(true);
      case State.DocumentStart:
        return this.parseDocumentStart(false);
      case State.DocumentContent:
        return this.parseDocumentContent();
      case State.DocumentEnd:
        return this.parseDocumentEnd();
      case State.BlockNode:
        return this.parseNode(true, false);
      case State.BlockNodeOrIndentlessSequence:
        return this.parseNode(true, true);
      case State.FlowNode:
        return this.parseNode(false, false);
      case State.BlockSequenceFirstEntry:
        return this.parseBlockSequenceEntry(true);
      case State.BlockSequenceEntry:
        return this.parseBlockSequenceEntry(false);
      case State.IndentlessSequenceEntry:
        return this.parseIndentlessSequenceEntry();
      case State.BlockMappingFirstKey:
        return this.parseBlockMappingKey(true);
      case State.BlockMappingKey:
        return this.parseBlockMappingKey(false);
      case State.BlockMappingValue:
        return this.parseBlockMappingValue();
      case State.FlowSequenceFirstEntry:
        return this.parseFlowSequenceEntry(true);
      case State.FlowSequenceEntry:
        return this.parseFlowSequenceEntry(false);
      case State.FlowSequenceEntryMappingKey:
        return this.parseFlowSequenceEntryMappingKey();
      case State.FlowSequenceEntryMappingValue:
        return this.parseFlowSequenceEntryMappingValue();
      case State.FlowSequenceEntryMappingEnd:
        return this.parseFlowSequenceEntryMappingEnd();
      case State.FlowMappingFirstKey:
        return this.parseFlowMappingKey(true);
      case State.FlowMappingKey:
        return this.parseFlowMappingKey(false);
      case State.FlowMappingValue:
        return this.parseFlowMappingValue(false);
      case State.FlowMappingEmptyValue:
        return this.parseFlowMappingValue(true);
      default:
        throw new Error("invalid parser state");
    }
  }

  private parseStreamStart(): YamlEvent | undefined {
    const token = this.peek();
    if (token === undefined) return undefined;
    if (token.type !== Tok.StreamStart) return this.setError("did not find expected <stream-start>", token.start);
    this.state = State.ImplicitDocumentStart;
    const e = event(Ev.StreamStart, token.start, token.end);
    this.skip();
    return e;
  }

  private parseDocumentStart(implicit: boolean): YamlEvent | undefined {
    let token = this.peek();
    if (token === undefined) return undefined;
    if (!implicit) {
      while (token.type === Tok.DocumentEnd) {
        this.skip();
        token = this.peek();
        if (token === undefined) return undefined;
      }
    }
    if (
      implicit &&
      token.type !== Tok.VersionDirective &&
      token.type !== Tok.TagDirective &&
      token.type !== Tok.DocumentStart &&
      token.type !== Tok.StreamEnd
    ) {
      if (!this.processDirectives()) return undefined;
      this.states.push(State.DocumentEnd);
      this.state = State.BlockNode;
      return event(Ev.DocumentStart, token.start, token.end);
    }
    if (token.type !== Tok.StreamEnd) {
      const start = token.start;
      if (!this.processDirectives()) return undefined;
      token = this.peek();
      if (token === undefined) return undefined;
      if (token.type !== Tok.DocumentStart) return this.setError("did not find expected <document start>", token.start);
      this.states.push(State.DocumentEnd);
      this.state = State.DocumentContent;
      const e = event(Ev.DocumentStart, start, token.end);
      this.skip();
      return e;
    }
    this.state = State.End;
    const e = event(Ev.StreamEnd, token.start, token.end);
    this.skip();
    return e;
  }

  private parseDocumentContent(): YamlEvent | undefined {
    const token = this.peek();
    if (token === undefined) return undefined;
    if (
      token.type === Tok.VersionDirective ||
      token.type === Tok.TagDirective ||
      token.type === Tok.DocumentStart ||
      token.type === Tok.DocumentEnd ||
      token.type === Tok.StreamEnd
    ) {
      this.popState();
      return emptyScalar(token.start);
    }
    return this.parseNode(true, false);
  }

  private parseDocumentEnd(): YamlEvent | undefined {
    const token = this.peek();
    if (token === undefined) return undefined;
    const start = token.start;
    let end = token.start;
    let implicit = true;
    if (token.type === Tok.DocumentEnd) {
      end = token.end;
      this.skip();
      implicit = false;
    }
    this.tagDirectives = [];
    this.state = State.DocumentStart;
    const e = event(Ev.DocumentEnd, start, end);
    e.implicit = implicit;
    return e;
  }

  private parseNode(block: boolean, indentlessSequence: boolean): YamlEvent | undefined {
    let token = this.peek();
    if (token === undefined) return undefined;
    if (token.type === Tok.Alias) {
      this.popState();
      const e = event(Ev.Alias, token.start, token.end);
      e.anchor = token.value;
      this.skip();
      return e;
    }
    let start = token.start;
    let end = token.start;
    let tagToken = false;
    let tagHandle = "";
    let tagSuffix = "";
    let anchor: string | undefined;
    let tagMark = token.start;
    if (token.type === Tok.Anchor) {
      anchor = token.value;
      start = token.start;
      end = token.end;
      this.skip();
      token = this.peek();
      if (token === undefined) return undefined;
      if (token.type === Tok.Tag) {
        tagToken = true;
        tagHandle = token.value;
        tagSuffix = token.suffix;
        tagMark = token.start;
        end = token.end;
        this.skip();
        token = this.peek();
        if (token === undefined) return undefined;
      }
    } else if (token.type === Tok.Tag) {
      tagToken = true;
      tagHandle = token.value;
      tagSuffix = token.suffix;
      start = token.start;
      tagMark = token.start;
      end = token.end;
      this.skip();
      token = this.peek();
      if (token === undefined) return undefined;
      if (token.type === Tok.Anchor) {
        anchor = token.value;
        end = token.end;
        this.skip();
        token = this.peek();
        if (token === undefined) return undefined;
      }
    }

    let tag = "";
    if (tagToken) {
      if (tagHandle.length === 0) {
        tag = tagSuffix;
      } else {
        const directive = this.tagDirectives.find((d) => d.handle === tagHandle);
        if (directive !== undefined) tag = directive.prefix + tagSuffix;
        if (tag.length === 0) return this.setErrorContext("while parsing a node", start, "found undefined tag handle", tagMark);
      }
    }

    const implicit = tag.length === 0;
    if (indentlessSequence && token.type === Tok.BlockEntry) {
      end = token.end;
      this.state = State.IndentlessSequenceEntry;
      return collectionStart(Ev.SequenceStart, start, end, anchor, tag, implicit);
    }
    if (token.type === Tok.Scalar) {
      let plainImplicit = false;
      let quotedImplicit = false;
      end = token.end;
      if ((tag.length === 0 && token.style === ScalarStyle.Plain) || tag === "!") plainImplicit = true;
      else if (tag.length === 0) quotedImplicit = true;
      this.popState();
      const e = event(Ev.Scalar, start, end);
      e.anchor = anchor;
      e.tag = tag;
      e.value = token.value;
      e.implicit = plainImplicit;
      e.quotedImplicit = quotedImplicit;
      e.style = token.style;
      this.skip();
      return e;
    }
    if (token.type === Tok.FlowSequenceStart) {
      this.state = State.FlowSequenceFirstEntry;
      return collectionStart(Ev.SequenceStart, start, token.end, anchor, tag, implicit);
    }
    if (token.type === Tok.FlowMappingStart) {
      this.state = State.FlowMappingFirstKey;
      return collectionStart(Ev.MappingStart, start, token.end, anchor, tag, implicit);
    }
    if (block && token.type === Tok.BlockSequenceStart) {
      this.state = State.BlockSequenceFirstEntry;
      return collectionStart(Ev.SequenceStart, start, token.end, anchor, tag, implicit);
    }
    if (block && token.type === Tok.BlockMappingStart) {
      this.state = State.BlockMappingFirstKey;
      return collectionStart(Ev.MappingStart, start, token.end, anchor, tag, implicit);
    }
    if (anchor !== undefined || tag.length > 0) {
      this.popState();
      const e = event(Ev.Scalar, start, end);
      e.anchor = anchor;
      e.tag = tag;
      e.implicit = implicit;
      e.style = ScalarStyle.Plain;
      return e;
    }
    return this.setErrorContext(
      block ? "while parsing a block node" : "while parsing a flow node",
      start,
      "did not find expected node content",
      token.start,
    );
  }

  private parseBlockSequenceEntry(first: boolean): YamlEvent | undefined {
    if (first) {
      const t = this.peek() as Token;
      this.marks.push(t.start);
      this.skip();
    }
    let token = this.peek();
    if (token === undefined) return undefined;
    if (token.type === Tok.BlockEntry) {
      const mark = token.end;
      this.skip();
      token = this.peek();
      if (token === undefined) return undefined;
      if (token.type !== Tok.BlockEntry && token.type !== Tok.BlockEnd) {
        this.states.push(State.BlockSequenceEntry);
        return this.parseNode(true, false);
      }
      this.state = State.BlockSequenceEntry;
      return emptyScalar(mark);
    }
    if (token.type === Tok.BlockEnd) {
      this.popState();
      this.marks.pop();
      const e = event(Ev.SequenceEnd, token.start, token.end);
      this.skip();
      return e;
    }
    const contextMark = this.marks.pop() as Mark;
    return this.setErrorContext("while parsing a block collection", contextMark, "did not find expected '-' indicator", token.start);
  }

  private parseIndentlessSequenceEntry(): YamlEvent | undefined {
    let token = this.peek();
    if (token === undefined) return undefined;
    if (token.type === Tok.BlockEntry) {
      const mark = token.end;
      this.skip();
      token = this.peek();
      if (token === undefined) return undefined;
      if (token.type !== Tok.BlockEntry && token.type !== Tok.Key && token.type !== Tok.Value && token.type !== Tok.BlockEnd) {
        this.states.push(State.IndentlessSequenceEntry);
        return this.parseNode(true, false);
      }
      this.state = State.IndentlessSequenceEntry;
      return emptyScalar(mark);
    }
    this.popState();
    return event(Ev.SequenceEnd, token.start, token.start);
  }

  private parseBlockMappingKey(first: boolean): YamlEvent | undefined {
    if (first) {
      const t = this.peek() as Token;
      this.marks.push(t.start);
      this.skip();
    }
    let token = this.peek();
    if (token === undefined) return undefined;
    if (token.type === Tok.Key) {
      const mark = token.end;
      this.skip();
      token = this.peek();
      if (token === undefined) return undefined;
      if (token.type !== Tok.Key && token.type !== Tok.Value && token.type !== Tok.BlockEnd) {
        this.states.push(State.BlockMappingValue);
        return this.parseNode(true, true);
      }
      this.state = State.BlockMappingValue;
      return emptyScalar(mark);
    }
    if (token.type === Tok.BlockEnd) {
      this.popState();
      this.marks.pop();
      const e = event(Ev.MappingEnd, token.start, token.end);
      this.skip();
      return e;
    }
    const contextMark = this.marks.pop() as Mark;
    return this.setErrorContext("while parsing a block mapping", contextMark, "did not find expected key", token.start);
  }

  private parseBlockMappingValue(): YamlEvent | undefined {
    let token = this.peek();
    if (token === undefined) return undefined;
    if (token.type === Tok.Value) {
      const mark = token.end;
      this.skip();
      token = this.peek();
      if (token === undefined) return undefined;
      if (token.type !== Tok.Key && token.type !== Tok.Value && token.type !== Tok.BlockEnd) {
        this.states.push(State.BlockMappingKey);
        return this.parseNode(true, true);
      }
      this.state = State.BlockMappingKey;
      return emptyScalar(mark);
    }
    this.state = State.BlockMappingKey;
    return emptyScalar(token.start);
  }

  private parseFlowSequenceEntry(first: boolean): YamlEvent | undefined {
    if (first) {
      const t = this.peek() as Token;
      this.marks.push(t.start);
      this.skip();
    }
    let token = this.peek();
    if (token === undefined) return undefined;
    if (token.type !== Tok.FlowSequenceEnd) {
      if (!first) {
        if (token.type === Tok.FlowEntry) {
          this.skip();
          token = this.peek();
          if (token === undefined) return undefined;
        } else {
          const contextMark = this.marks.pop() as Mark;
          return this.setErrorContext("while parsing a flow sequence", contextMark, "did not find expected ',' or ']'", token.start);
        }
      }
      if (token.type === Tok.Key) {
        this.state = State.FlowSequenceEntryMappingKey;
        const e = event(Ev.MappingStart, token.start, token.end);
        e.implicit = true;
        e.style = ScalarStyle.Any;
        this.skip();
        return e;
      } else if (token.type !== Tok.FlowSequenceEnd) {
        this.states.push(State.FlowSequenceEntry);
        return this.parseNode(false, false);
      }
    }
    this.popState();
    this.marks.pop();
    const e = event(Ev.SequenceEnd, token.start, token.end);
    this.skip();
    return e;
  }

  private parseFlowSequenceEntryMappingKey(): YamlEvent | undefined {
    const token = this.peek();
    if (token === undefined) return undefined;
    if (token.type !== Tok.Value && token.type !== Tok.FlowEntry && token.type !== Tok.FlowSequenceEnd) {
      this.states.push(State.FlowSequenceEntryMappingValue);
      return this.parseNode(false, false);
    }
    const mark = token.end;
    this.skip();
    this.state = State.FlowSequenceEntryMappingValue;
    return emptyScalar(mark);
  }

  private parseFlowSequenceEntryMappingValue(): YamlEvent | undefined {
    let token = this.peek();
    if (token === undefined) return undefined;
    if (token.type === Tok.Value) {
      this.skip();
      token = this.peek();
      if (token === undefined) return undefined;
      if (token.type !== Tok.FlowEntry && token.type !== Tok.FlowSequenceEnd) {
        this.states.push(State.FlowSequenceEntryMappingEnd);
        return this.parseNode(false, false);
      }
    }
    this.state = State.FlowSequenceEntryMappingEnd;
    return emptyScalar(token.start);
  }

  private parseFlowSequenceEntryMappingEnd(): YamlEvent | undefined {
    const token = this.peek();
    if (token === undefined) return undefined;
    this.state = State.FlowSequenceEntry;
    return event(Ev.MappingEnd, token.start, token.start);
  }

  private parseFlowMappingKey(first: boolean): YamlEvent | undefined {
    if (first) {
      const t = this.peek() as Token;
      this.marks.push(t.start);
      this.skip();
    }
    let token = this.peek();
    if (token === undefined) return undefined;
    if (token.type !== Tok.FlowMappingEnd) {
      if (!first) {
        if (token.type === Tok.FlowEntry) {
          this.skip();
          token = this.peek();
          if (token === undefined) return undefined;
        } else {
          const contextMark = this.marks.pop() as Mark;
          return this.setErrorContext("while parsing a flow mapping", contextMark, "did not find expected ',' or '}'", token.start);
        }
      }
      if (token.type === Tok.Key) {
        this.skip();
        token = this.peek();
        if (token === undefined) return undefined;
        if (token.type !== Tok.Value && token.type !== Tok.FlowEntry && token.type !== Tok.FlowMappingEnd) {
          this.states.push(State.FlowMappingValue);
          return this.parseNode(false, false);
        }
        this.state = State.FlowMappingValue;
        return emptyScalar(token.start);
      } else if (token.type !== Tok.FlowMappingEnd) {
        this.states.push(State.FlowMappingEmptyValue);
        return this.parseNode(false, false);
      }
    }
    this.popState();
    this.marks.pop();
    const e = event(Ev.MappingEnd, token.start, token.end);
    this.skip();
    return e;
  }

  private parseFlowMappingValue(empty: boolean): YamlEvent | undefined {
    let token = this.peek();
    if (token === undefined) return undefined;
    if (empty) {
      this.state = State.FlowMappingKey;
      return emptyScalar(token.start);
    }
    if (token.type === Tok.Value) {
      this.skip();
      token = this.peek();
      if (token === undefined) return undefined;
      if (token.type !== Tok.FlowEntry && token.type !== Tok.FlowMappingEnd) {
        this.states.push(State.FlowMappingKey);
        return this.parseNode(false, false);
      }
    }
    this.state = State.FlowMappingKey;
    return emptyScalar(token.start);
  }

  private processDirectives(): boolean {
    let versionSeen = false;
    let token = this.peek();
    if (token === undefined) return false;
    while (token.type === Tok.VersionDirective || token.type === Tok.TagDirective) {
      if (token.type === Tok.VersionDirective) {
        if (versionSeen) return this.setError("found duplicate %YAML directive", token.start) ?? false;
        if (token.major !== 1 || token.minor !== 1) return this.setError("found incompatible YAML document", token.start) ?? false;
        versionSeen = true;
      } else if (!this.appendTagDirective({ handle: token.value, prefix: token.prefix }, false, token.start)) {
        return false;
      }
      this.skip();
      token = this.peek();
      if (token === undefined) return false;
    }
    for (const d of DEFAULT_TAG_DIRECTIVES) {
      if (!this.appendTagDirective(d, true, token.start)) return false;
    }
    return true;
  }

  private appendTagDirective(value: TagDirective, allowDuplicates: boolean, mark: Mark): boolean {
    for (const d of this.tagDirectives) {
      if (d.handle === value.handle) {
        if (allowDuplicates) return true;
        return this.setError("found duplicate %TAG directive", mark) ?? false;
      }
    }
    this.tagDirectives.push({ handle: value.handle, prefix: value.prefix });
    return true;
  }
}

function zeroMark(): Mark {
  return { index: 0, line: 0, column: 0 };
}

function emptyScalar(mark: Mark): YamlEvent {
  const e = event(Ev.Scalar, mark, mark);
  e.implicit = true;
  e.style = ScalarStyle.Plain;
  return e;
}

function collectionStart(type: Ev, start: Mark, end: Mark, anchor: string | undefined, tag: string, implicit: boolean): YamlEvent {
  const e = event(type, start, end);
  e.anchor = anchor;
  e.tag = tag;
  e.implicit = implicit;
  return e;
}
