/**
 * parseGoTemplate and its execute against Go 1.23's text/template: every template of
 * test/fixtures/go-ports/template/cases.json, parsed under its name and executed over its data, with Go's output or
 * error (expected.json, written by main.go there; it says what each kind of data is). To regenerate:
 *
 *   cd test/fixtures/go-ports/template && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { eachUpstreamCase, loadUpstream, type Answer } from "../../../../test/fixtures/go-ports/load.js";
import { objectMetaValue } from "../../../apis/object-meta-template.js";
import { parseGoTemplate } from "./template.js";
import { STRING, type GoType, type GoValue } from "./values.js";

interface Case {
  name: string;
  text: string;
  data: "domain" | "domain-maps" | "tag" | "meta" | "nil";
  meta?: Record<string, unknown>;
}

const STRING_MAP: GoType = { kind: "map", name: "map[string]string", elem: STRING };

function str(v: string): GoValue {
  return { type: STRING, v };
}

function stringMap(entries: Record<string, string> | undefined): GoValue {
  return { type: STRING_MAP, v: entries === undefined ? null : new Map(Object.entries(entries).map(([k, v]) => [k, str(v)])) };
}

/** A Go struct value of the named type, its fields in declaration order. */
function struct(name: string, fields: Record<string, GoValue>): GoValue {
  return { type: { kind: "struct", name, fields: Object.keys(fields) }, v: (f: string) => fields[f] as GoValue };
}

/** main.go's data, field for field. */
function data(c: Case): GoValue | undefined {
  switch (c.data) {
    case "domain":
    case "domain-maps": {
      const maps = c.data === "domain-maps";
      return struct("config.DomainTemplateValues", {
        Name: str("foo"),
        Namespace: str("bar"),
        Domain: str("baz.com"),
        Annotations: stringMap(maps ? { x: "1", b: "2", a: "" } : undefined),
        Labels: stringMap(maps ? { app: "foo" } : undefined),
      });
    }
    case "tag":
      return struct("config.TagTemplateValues", { Name: str("foo"), Tag: str("v2") });
    case "meta":
      return objectMetaValue(c.meta);
    case "nil":
      return undefined;
  }
}

function port(c: Case): Answer<string> {
  const parsed = parseGoTemplate(c.name, c.text);
  if (!parsed.ok) return { err: parsed.error };
  const r = parsed.template.execute(data(c));
  return r.ok ? { value: r.value } : { err: r.error };
}

describe("text/template against Go 1.23 (test/fixtures/go-ports/template)", () => {
  eachUpstreamCase(loadUpstream<Case, Answer<string>>("template"), (c, want) => expect(port(c)).toEqual(want));
});
