import { describe, expect, it } from "vitest";
import { lastTopLevelMemberText, rawMemberText } from "./raw-member.js";

const PATH = ["request", "object"];

describe("rawMemberText", () => {
  it("returns the member's text as sent: spacing, escapes and number spellings kept", () => {
    const body = '{ "request" : { "uid":"u", "object" : {"a": "\\u003c}]\\"", "n": 1.0e2 , "b":[1, {"c":null}]} , "x":1 } }';
    expect(rawMemberText(body, PATH)).toBe('{"a": "\\u003c}]\\"", "n": 1.0e2 , "b":[1, {"c":null}]}');
  });

  it("matches names as encoding/json does (case-insensitively, escapes decoded)", () => {
    expect(rawMemberText('{"REQUEST":{"Object":[1]}}', PATH)).toBe("[1]");
    expect(rawMemberText('{"request":{"obj\\u0065ct":2}}', PATH)).toBe("2");
    expect(rawMemberText('{"request":{"objects":2}}', PATH)).toBeUndefined();
  });

  it("keeps the last non-null member (RawExtension ignores null), and a null request drops what came before", () => {
    expect(rawMemberText('{"request":{"object":1,"Object":null}}', PATH)).toBe("1");
    expect(rawMemberText('{"request":{"object":1},"Request":{"OBJECT":"two"}}', PATH)).toBe('"two"');
    expect(rawMemberText('{"request":{"object":1},"request":null}', PATH)).toBeUndefined();
    expect(rawMemberText('{"request":{"object":1},"request":null,"request":{"uid":"u"}}', PATH)).toBeUndefined();
  });

  it("reads a Buffer as Go reads bytes, and only the first JSON value", () => {
    expect(rawMemberText(Buffer.from('  {"request":{"object":{"k":"é"}}} {"request":{"object":2}}'), PATH)).toBe('{"k":"é"}');
    expect(rawMemberText("[1]", PATH)).toBeUndefined();
  });
});

describe("lastTopLevelMemberText", () => {
  it("is the last occurrence's text, matched exactly, as a map[string]json.RawMessage holds it", () => {
    expect(lastTopLevelMemberText('{"review":{"a":1,"a":2}, "name":"n"}', "review")).toBe('{"a":1,"a":2}');
    expect(lastTopLevelMemberText('{"review":{"a":1},"review": [ 1 ,2 ] }', "review")).toBe("[ 1 ,2 ]");
    expect(lastTopLevelMemberText('{"review":{"a":1},"review":null}', "review")).toBe("null");
    expect(lastTopLevelMemberText('{"Review":{"a":1}}', "review")).toBeUndefined();
    expect(lastTopLevelMemberText('{"x":{"review":1}}', "review")).toBeUndefined();
    expect(lastTopLevelMemberText("[1]", "review")).toBeUndefined();
  });
});
