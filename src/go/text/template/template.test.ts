import { describe, expect, it } from "vitest";
import { nodeString } from "./nodes.js";
import { objectMetaValue } from "../../../apis/object-meta-template.js";
import { parseTemplate } from "./parse.js";
import { parseGoTemplate } from "./template.js";

function parseError(name: string, text: string): string {
  const r = parseTemplate(name, text);
  expect(r.ok).toBe(false);
  return r.ok ? "" : r.error;
}

function render(text: string, meta?: Record<string, unknown>): string {
  const r = parseGoTemplate("container-template", text);
  if (!r.ok) throw new Error(r.error);
  const out = r.template.execute(objectMetaValue(meta));
  return out.ok ? out.value : `ERROR: ${out.error}`;
}

// Go's parse_test.go parseTests (successes): input and the tree's String() (text nodes unquoted here).
const PARSES: ReadonlyArray<readonly [string, string]> = [
  ["", ""],
  ["{{/*\n\n\n*/}}", ""],
  ["some text", "some text"],
  ["{{.X}}", "{{.X}}"],
  ["{{printf}}", "{{printf}}"],
  ["{{$}}", "{{$}}"],
  ["{{with $x := 3}}{{$x 23}}{{end}}", "{{with $x := 3}}{{$x 23}}{{end}}"],
  ["{{$.I}}", "{{$.I}}"],
  ["{{printf `%d` 23}}", "{{printf `%d` 23}}"],
  ["{{.X|.Y}}", "{{.X | .Y}}"],
  ["{{$x := .X|.Y}}", "{{$x := .X | .Y}}"],
  ["{{.X (.Y .Z) (.A | .B .C) (.E)}}", "{{.X (.Y .Z) (.A | .B .C) (.E)}}"],
  ["{{(.Y .Z).Field}}", "{{(.Y .Z).Field}}"],
  ["{{if .X}}hello{{end}}", "{{if .X}}hello{{end}}"],
  ["{{if .X}}true{{else}}false{{end}}", "{{if .X}}true{{else}}false{{end}}"],
  ["{{if .X}}true{{else if .Y}}false{{end}}", "{{if .X}}true{{else}}{{if .Y}}false{{end}}{{end}}"],
  ["{{range .X.Y.Z}}hello{{end}}", "{{range .X.Y.Z}}hello{{end}}"],
  ["{{range $x, $y := .SI}}{{.}}{{end}}", "{{range $x, $y := .SI}}{{.}}{{end}}"],
  ["{{range .SI}}{{.}}{{break}}{{end}}", "{{range .SI}}{{.}}{{break}}{{end}}"],
  ["{{range .SI 1 -3.2i true false 'a' nil}}{{end}}", "{{range .SI 1 -3.2i true false 'a' nil}}{{end}}"],
  ["{{template `x`}}", '{{template "x"}}'],
  ["{{template `x` .Y}}", '{{template "x" .Y}}'],
  ["{{with .X}}hello{{else with .Y}}goodbye{{end}}", "{{with .X}}hello{{else}}{{with .Y}}goodbye{{end}}{{end}}"],
  ["x \r\n\t{{- 3}}", "x{{3}}"],
  ["{{3 -}}\n\n\ty", "{{3}}y"],
  ["x \r\n\t{{- 3 -}}\n\n\ty", "x{{3}}y"],
  ["x\n{{-  3   -}}\ny", "x{{3}}y"],
  ["x \r\n\t{{- /* hi */}}", "x"],
  ["{{/* hi */ -}}\n\n\ty", "y"],
  ['{{block "foo" .}}hello{{end}}', '{{template "foo" .}}'],
  ["{{ $x \n := \n 1 \n }}", "{{$x := 1}}"],
  ['{{\n"x"\n|\nprintf\n}}', '{{"x" | printf}}'],
  ["{{$x := 0}}{{$x}}", "{{$x := 0}}{{$x}}"],
  ["{{$x:=.}}{{$x +2}}", "{{$x := .}}{{$x +2}}"],
  ["{{range $x = 0}}{{$x}}{{end}}", "{{range $x = 0}}{{$x}}{{end}}"],
];

// Go's parse_test.go parseTests (failures) and errorTests: input and a part of the message.
const PARSE_ERRORS: ReadonlyArray<readonly [string, string]> = [
  ["{{}}", "missing value for command"],
  ["{{\n}}", "missing value for command"],
  ["hello{{range", "unclosed action"],
  ["{{end}}", "unexpected {{end}}"],
  ["{{else}}", "unexpected {{else}}"],
  ["{{if .X}}hello{{end}}{{else}}", "unexpected {{else}}"],
  ["{{if .X}}1{{else}}2{{else}}3{{end}}", "expected end; found {{else}}"],
  ["hello{{range .x}}", "unexpected EOF"],
  ["hello{{range .x}}{{else}}", "unexpected EOF"],
  ["hello{{undefined}}", 'function "undefined" not defined'],
  ["{{$x}}", 'undefined variable "$x"'],
  ["{{with $x := 4}}{{end}}{{$x}}", 'undefined variable "$x"'],
  ["{{template $v}}", 'unexpected "$v" in template clause'],
  ["{{template .X}}", 'unexpected ".X" in template clause'],
  ["{{printf 3, 4}}", 'unexpected "," in operand'],
  ["{{with $v, $u := 3}}{{end}}", "too many declarations in with"],
  ["{{range $u, $v, $w := 3}}{{end}}", "too many declarations in range"],
  ["{{printf (printf .).}}", "unexpected <.> in operand"],
  ["{{printf 3`x`}}", "unexpected \"`x`\" in operand"],
  ["{{if .X}}a{{else if .Y}}b{{end}}{{end}}", "unexpected {{end}}"],
  ["{{range .}}{{end}} {{break}}", "{{break}} outside {{range}}"],
  ["{{range .}}{{else}}{{continue}}{{end}}", "{{continue}} outside {{range}}"],
  ["{{$x += 1}}{{$x}}", 'undefined variable "$x"'],
  ["{{$x := 1}}{{$x += 1}}", 'illegal number syntax: "+"'],
  ["{{range $x := $y := 3}}{{end}}", 'undefined variable "$y"'],
  ["{{$x:=.}}{{$x+2}}", "bad character U+002B '+'"],
  ["{{1.E}}", 'illegal number syntax: "1.E"'],
  ["{{true.E}}", 'unexpected . after term "true"'],
  ["{{'a'.any}}", "unexpected . after term \"'a'\""],
  ['{{"hello".guys}}', 'unexpected . after term "\\"hello\\""'],
  ["{{..E}}", 'unexpected . after term "."'],
  ["{{nil.E}}", 'unexpected . after term "nil"'],
  ["{{12|.}}", "non executable command in pipeline stage 2"],
  ["{{.|12|printf}}", "non executable command in pipeline stage 2"],
  ['{{printf "%d" ( ) }}', "missing value for parenthesized pipeline"],
  ['{{block "foo"}}hello{{end}}', "missing value for block clause"],
  ["line1\n{{", "unclosed1:2: unclosed action"],
  ["line1\n{{define `x`}}line2\n{{", "unclosed1:3: unclosed action"],
  ['line1\n{{"x"\n"y"\n', "unclosed1:4: unclosed action started at unclosed1:2"],
  ["{{\n\n\n\n\n", "unclosed1:6: unclosed action started at unclosed1:1"],
  ["line1\n{{\nx\n}}", 'unclosed1:3: function "x" not defined'],
  ["{{/*}}", "unclosed1:1: unclosed comment"],
  ["{{.X (1 2 3}}", "unclosed left paren"],
  ["{{.X 1 2 3 ) }}", "unexpected right paren"],
  ["{{(.X 1 2 3", "unclosed action"],
  ["{{a#}}", "bad character U+0023 '#'"],
  ["{{'a}}", "unterminated character constant"],
  ['{{"a}}', "unterminated quoted string"],
  ["{{`a}}", "unterminated raw quoted string"],
  ["{{0xi}}", 'illegal number syntax: "0xi"'],
  ["{{1x}}", 'bad number syntax: "1x"'],
  ["{{define `a`}}a{{end}}{{define `a`}}b{{end}}", 'template: multiple definition of template "a"'],
  ["{{$x := 23}}{{with $x.y := 3}}{{$x 23}}{{end}}", 'unexpected ":=" in operand'],
  ["{{$a,$b,$c := 23}}", "too many declarations in command"],
  ["{{12|false}}", "non executable command in pipeline stage 2"],
  ["{{ $v := `\n` }} {{", "unclosed1:2: unclosed action"],
  ["{{range $k,}}{{end}}", "missing value for range"],
  ["{{range $k, .}}{{end}}", "range can only initialize variables"],
  ["{{'ab'}}", "malformed character constant: 'ab'"],
  ['{{"\\q"}}', "invalid syntax"],
  ["{{\u20ac}}", "unrecognized character in action: U+20AC '\u20ac'"],
];

describe("text/template parsing", () => {
  it.each(PARSES)("parses %j", (input, want) => {
    const r = parseTemplate("t", input);
    expect(r.ok).toBe(true);
    if (r.ok) expect(nodeString(r.value.trees.get("t") as never)).toBe(want);
  });

  it.each(PARSE_ERRORS)("rejects %j", (input, want) => {
    expect(parseError("unclosed1", input)).toContain(want);
  });

  it("reports Go's full messages for what Knative users get wrong", () => {
    expect(parseError("container-template", "{{.Name")).toBe("template: container-template:1: unclosed action");
    expect(parseError("domain-template", "{{.Name}.{{.Domain}}")).toBe("template: domain-template:1: bad character U+007D '}'");
    expect(parseError("container-template", "{{.Name } }}")).toBe('template: container-template:1: unexpected "}" in operand');
    expect(parseError("container-template", "{{ lower .Name }}")).toBe('template: container-template:1: function "lower" not defined');
  });

  it("records {{define}} and {{block}} templates by name", () => {
    const r = parseTemplate("outer", 'a{{block "inner" .}}bar{{.}}baz{{end}}b');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(nodeString(r.value.trees.get("outer") as never)).toBe('a{{template "inner" .}}b');
    expect(nodeString(r.value.trees.get("inner") as never)).toBe("bar{{.}}baz");
  });
});

const META = {
  name: "hello",
  namespace: "default",
  generation: 3,
  labels: { app: "web", "app.kubernetes.io/name": "shop" },
  annotations: { team: "blue" },
  finalizers: ["a", "b"],
};

describe("text/template execution over ObjectMeta", () => {
  it.each([
    ["user-container", undefined, "user-container"],
    ["{{.Name}}", META, "hello"],
    ["{{.Name}}-{{.Namespace}}", META, "hello-default"],
    ["{{ .Name -}} - {{- .Namespace }}", META, "hello-default"],
    ["{{.Labels.app}}", META, "web"],
    ['{{index .Labels "app.kubernetes.io/name"}}', META, "shop"],
    ['{{index .Labels "missing"}}', META, ""],
    ["{{.Labels.missing}}", META, "<no value>"],
    ["{{.Labels.app}}", undefined, "<no value>"],
    ["{{.Labels}}", META, "map[app:web app.kubernetes.io/name:shop]"],
    ["{{.Finalizers}}", META, "[a b]"],
    ["{{.Generation}}", META, "3"],
    ["{{.DeletionTimestamp}}", META, "<nil>"],
    ["{{.CreationTimestamp}}", { creationTimestamp: "2024-05-01T10:20:30Z" }, "2024-05-01 10:20:30 +0000 UTC"],
    ["{{if .Name}}{{.Name}}{{else}}anon{{end}}", {}, "anon"],
    ["{{with .Namespace}}{{.}}-x{{end}}", META, "default-x"],
    ["{{range $k, $v := .Labels}}{{$k}}={{$v}};{{end}}", META, "app=web;app.kubernetes.io/name=shop;"],
    ["{{range .Finalizers}}{{if eq . \"b\"}}{{break}}{{end}}{{.}}{{end}}", META, "a"],
    ['{{printf "%s-%d" .Name .Generation}}', META, "hello-3"],
    ["{{len .Name}}", META, "5"],
    ['{{print .Name "x" 1 2}}', META, "hellox1 2"],
    ["{{.Name | printf \"c-%s\"}}", META, "c-hello"],
    ['{{$n := .Name}}{{$n}}{{$n = "z"}}{{$n}}', META, "helloz"],
    ['{{define "n"}}[{{.Name}}]{{end}}{{template "n" .}}', META, "[hello]"],
    ['{{slice .Name 1 3}}', META, "el"],
    ["{{html \"<a&b>\"}}", META, "&lt;a&amp;b&gt;"],
    ["{{not .Name}}", META, "false"],
    ["{{and .Name .Namespace}}", META, "default"],
    ["{{or .GenerateName .Name}}", META, "hello"],
    ["{{lt 1 2}} {{ge 1.5 2.5}}", META, "true false"],
    ["{{1.5}} {{0x10}} {{'a'}}", META, "1.5 16 97"],
  ] as const)("%j renders %j", (text, meta, want) => {
    expect(render(text, meta as Record<string, unknown> | undefined)).toBe(want);
  });

  it.each([
    ["{{.Foo}}", 'template: container-template:1:2: executing "container-template" at <.Foo>: can\'t evaluate field Foo in type v1.ObjectMeta'],
    ["{{.Name.Foo}}", 'template: container-template:1:7: executing "container-template" at <.Name.Foo>: can\'t evaluate field Foo in type string'],
    ["x\n  {{.Namespace.a}}", 'template: container-template:2:14: executing "container-template" at <.Namespace.a>: can\'t evaluate field a in type string'],
    ["{{.DeletionTimestamp.Time}}", 'template: container-template:1:20: executing "container-template" at <.DeletionTimestamp.Time>: can\'t evaluate field Time in type *v1.Time'],
    ["{{index .Labels 1}}", 'template: container-template:1:2: executing "container-template" at <index .Labels 1>: error calling index: value has type int; should be string'],
    ["{{len .Generation}}", 'template: container-template:1:2: executing "container-template" at <len .Generation>: error calling len: len of type int64'],
    ['{{template "nope"}}', 'template: container-template:1:11: executing "container-template" at <{{template "nope"}}>: template "nope" not defined'],
    ["{{.Name 1}}", 'template: container-template:1:2: executing "container-template" at <.Name>: Name has arguments but cannot be invoked as function'],
    ["{{not}}", 'template: container-template:1:2: executing "container-template" at <not>: wrong number of args for not: want 1 got 0'],
    ['{{printf 1}}', 'template: container-template:1:9: executing "container-template" at <1>: expected string; found 1'],
    ["{{eq .Name 1}}", 'template: container-template:1:2: executing "container-template" at <eq .Name 1>: error calling eq: incompatible types for comparison'],
  ] as const)("%j fails with Go's execution error", (text, want) => {
    expect(render(text)).toBe(`ERROR: ${want}`);
  });

  it("treats plain text as a constant that never executes", () => {
    const r = parseGoTemplate("container-template", "user-container");
    expect(r.ok && r.template.constant).toBe("user-container");
  });
});

// Nested parentheses recurse pipeline → command → operand → term in Go (parse.go) and evalPipeline → evalCommand
// in exec.go; the port runs both on an explicit stack, so depth is bounded only where Go bounds it.
describe("nested parenthesized pipelines", () => {
  const nested = (n: number, inner: string): string => "{{" + "(".repeat(n) + inner + ")".repeat(n) + "}}";

  it("parse and execute 20,000 deep as Go 1.23 does (no maxStackDepth there)", () => {
    expect(render(nested(20000, ".Name"), { name: "hello" })).toBe("hello");
    expect(render(nested(20000, 'printf "%s-c" .Name'), { name: "hello" })).toBe("hello-c");
  });

  it("stop past maxStackDepth where the release's Go has one (Go 1.26: 10000)", () => {
    expect(parseGoTemplate("t", nested(10000, "1"), { maxStackDepth: 10000 }).ok).toBe(true);
    expect(parseGoTemplate("t", nested(10001, "1"), { maxStackDepth: 10000 })).toEqual({ ok: false, error: "template: t:1: max expression depth exceeded" });
  });

  it("names a deep failing node as Go's Node.String() does", () => {
    expect(render(nested(5000, ".Missing"))).toBe(`ERROR: template: container-template:1:5002: executing "container-template" at <.Missing>: can't evaluate field Missing in type v1.ObjectMeta`);
    const r = parseTemplate("t", nested(5000, "1"));
    expect(r.ok && nodeString(r.value.trees.get("t")!)).toBe(nested(5000, "1"));
  });
});
